"""The Lmod modulefile that `cmake --install` writes (<prefix>/share/lmod/pairkit/<version>.lua)
makes an unchanged LAMMPS input run on our style, and coexists with other plugin modules.

The build is installed into a fresh temporary prefix, so the test does not depend on an
earlier `cmake --install`. Each step runs in a fresh `bash -c` that sources Lmod's own init
file, as a user's shell would:
  1. `module load pairkit` alone: LAMMPS_PLUGIN_PATH is exactly <prefix>/lib/lammps/plugins,
     and the LAMMPS ML-HDNNP example (examples/PACKAGES/hdnnp/in.hdnnp, no `plugin load`
     line) run with `-sf pk` autoloads the plugin ("Loaded 1 plugins from <that dir>"),
     runs on hdnnp/pk (its model line and the neighbor-list line name it), and gives the
     example log's step-0 E_pair, -750069.48 eV, within 0.01 eV (the digits the log prints).
  2. With LAMMPS_PLUGIN_PATH already set (as a LAMMPS module does), `module load pairkit`
     then a second plugin module made by this test: the path lists the second module's
     directory, ours, then the preset one; LAMMPS scans all three and the example still runs
     on hdnnp/pk with the same energy. Unloading the second module leaves ours and the preset
     one, and LAMMPS still registers our styles (`plugin list`).
The modulefile must prepend to LAMMPS_PLUGIN_PATH and never setenv it.
Exit code 77 (skipped) only where Lmod is not installed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from pklmp import LAMMPS_SRC, LMP, Checker, Result

LMOD_INITS = [os.path.join(os.environ.get("LMOD_PKG", "/nonexistent"), "init", "bash"),
              "/usr/share/lmod/lmod/init/bash"]
lmod_init = next((p for p in LMOD_INITS if os.path.isfile(p)), None)
if lmod_init is None:
    print("SKIP: Lmod is not installed (Debian: apt-get install lmod)")
    sys.exit(77)

EXAMPLE = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp")
LOG_EPAIR0 = -750069.48   # examples/PACKAGES/hdnnp/log.23Aug23.hdnnp.g++.1, step 0
version = os.environ["PK_VERSION"]
top = tempfile.mkdtemp(prefix="pk-lmod-")
prefix = os.path.join(top, "prefix")
subprocess.run([os.environ["PK_CMAKE"], "--install", os.environ["PK_BUILD_DIR"], "--prefix", prefix],
               check=True, stdout=subprocess.DEVNULL)
plugin_dir = os.path.join(prefix, "lib", "lammps", "plugins")
modulefile = os.path.join(prefix, "share", "lmod", "pairkit", f"{version}.lua")

# A second plugin module, as another package would install it, and a preset directory.
other_dir = os.path.join(top, "other-plugins")
site_dir = os.path.join(top, "site-plugins")
other_mods = os.path.join(top, "othermods", "otherplugin")
for d in (other_dir, site_dir, other_mods):
    os.makedirs(d)
with open(os.path.join(other_mods, "1.0.lua"), "w") as fh:
    fh.write(f'prepend_path("LAMMPS_PLUGIN_PATH", "{other_dir}")\n')
with open(os.path.join(top, "in.list"), "w") as fh:
    fh.write("plugin list\n")

chk = Checker()
with open(modulefile) as fh:
    text = fh.read()
chk.check(re.search(r'prepend_path\s*\(\s*"LAMMPS_PLUGIN_PATH"', text) is not None,
          "modulefile prepends LAMMPS_PLUGIN_PATH")
chk.check(re.search(r"setenv\s*\(\s*[\"']LAMMPS_PLUGIN_PATH", text) is None,
          "modulefile never setenv's LAMMPS_PLUGIN_PATH")
chk.contains(text, f'local prefix     = "{prefix}"', "modulefile names the prefix installed into")
chk.contains(text, "4 Feb 2025", "modulefile states the LAMMPS version")
with open(os.path.join(EXAMPLE, "in.hdnnp")) as fh:
    chk.check("plugin" not in fh.read(), "the example input has no plugin command")


def shell(lines, preset=None):
    """Run the bash lines after sourcing Lmod, in a clean environment (no inherited modules)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LAMMPS_PLUGIN_PATH", "MODULEPATH", "LOADEDMODULES", "_LMFILES_")
           and not k.startswith(("__LMOD", "LMOD_"))}
    env.update({"OMP_NUM_THREADS": "1", "PK_LMP": LMP, "PK_EXAMPLE": EXAMPLE})
    if preset:
        env["LAMMPS_PLUGIN_PATH"] = preset
    script = f"set -e\nsource {lmod_init}\nmodule use {prefix}/share/lmod\n" + "\n".join(lines)
    proc = subprocess.run(["bash", "-c", script], cwd=top, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-6000:])
        raise SystemExit(f"shell step failed with exit code {proc.returncode} in {top}")
    return proc.stdout


def run_example(tag):
    """Shell lines that run the example unchanged in a fresh directory holding links to its data."""
    work = os.path.join(top, tag)
    return [f"mkdir {work} && cd {work}",
            'ln -s "$PK_EXAMPLE/data.H2O-360mol" "$PK_EXAMPLE/hdnnp-data" .',
            '"$PK_LMP" -nocite -log none -in "$PK_EXAMPLE/in.hdnnp" -sf pk',
            f"cd {top}"]


def path_after(out, tag):
    return re.search(rf"^{tag}=(.*)$", out, re.M).group(1)


def check_ran_on_hdnnp_pk(out, what):
    chk.contains(out, "pair_style hdnnp/pk: model hdnnp-data", f"{what}: hdnnp/pk set up")
    chk.contains(out, "(1) pair hdnnp/pk, perpetual", f"{what}: neighbor list of hdnnp/pk")
    rows = Result(0, out, top).thermo()
    chk.check(rows[0]["Step"] == 0, f"{what}: first thermo row is step 0")
    chk.close(rows[0]["E_pair"], LOG_EPAIR0, 0.0, 0.01, f"{what}: step-0 E_pair vs example log")


# 1. pairkit alone
out = shell(["module load pairkit", 'echo "PATH_A=$LAMMPS_PLUGIN_PATH"'] + run_example("alone"))
chk.check(path_after(out, "PATH_A") == plugin_dir, f"pairkit alone: LAMMPS_PLUGIN_PATH is {plugin_dir}")
chk.contains(out, f"Loaded 1 plugins from {plugin_dir}\n", "pairkit alone: plugin autoloaded")
check_ran_on_hdnnp_pk(out, "pairkit alone")

# 2. preset path, pairkit, then a second plugin module; then the second one unloaded
out = shell(["module load pairkit", f"module use {top}/othermods", "module load otherplugin",
             'echo "PATH_B=$LAMMPS_PLUGIN_PATH"'] + run_example("both")
            + ["module unload otherplugin", 'echo "PATH_C=$LAMMPS_PLUGIN_PATH"',
               "module list 2>&1",
               '"$PK_LMP" -nocite -log none -in in.list'], preset=site_dir)
chk.check(path_after(out, "PATH_B") == ":".join((other_dir, plugin_dir, site_dir)),
          f"two modules: LAMMPS_PLUGIN_PATH {path_after(out, 'PATH_B')!r} is other:ours:preset")
for d, n in ((other_dir, 0), (plugin_dir, 1), (site_dir, 0)):
    chk.contains(out, f"Loaded {n} plugins from {d}\n", "two modules: LAMMPS scanned each directory")
check_ran_on_hdnnp_pk(out, "two modules")
chk.check(path_after(out, "PATH_C") == ":".join((plugin_dir, site_dir)),
          f"second module unloaded: LAMMPS_PLUGIN_PATH {path_after(out, 'PATH_C')!r} is ours:preset")
chk.contains(out, f"pairkit/{version}", "second module unloaded: pairkit still loaded")
chk.contains(out, "pair style plugin hdnnp/pk", "second module unloaded: our styles still registered")
if chk.failed == 0:
    shutil.rmtree(top)   # kept for inspection when a check failed
chk.finish()
