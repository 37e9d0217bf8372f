#!/usr/bin/env python3
"""Vectorisation of the SVE backends without A64FX hardware: dynamic instructions per
atom-step of each style's sve backend against its portable C (cpu) backend compiled for the
same CPU (-march=armv8.2-a+sve on the whole build, as one would build on an A64FX), counted
under qemu-aarch64 at one SVE vector length (512-bit, A64FX's, by default) with the plugin of
tools/sve-insn-count.sh.

For each style the step driver bench/sve/<style>_steps.c (`sve_steps_<style> cpu|sve STEPS`)
runs one fixed system; it is counted at 1 and at 1 + K steps, and the difference over
K x atoms is the count per atom-step of the compute alone (set-up, the first step's
allocations and the driver's own work cancel). Per function too, so the hot kernels show.
The "hot kernel" columns count only the functions the sve backend replaces: everything but the
functions that run under both backends with the same name and a count within SHARED_WITHIN
of each other (the style's shared driver, neighbour gathering and sorting, libc and libm).

  bench/sve_count.py [--build DIR] [--vl 64] [--extra-steps 2] [--styles mdpd,...] [--out FILE]

--build: a cross build configured here when missing (default build-a64fx/ in the checkout:
cmake/aarch64-linux-gnu.cmake, -DPAIRKIT_SVE=ON, CMAKE_C_FLAGS=-march=armv8.2-a+sve).
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STYLES = ["mdpd", "deepmd", "hdnnp", "amoeba"]
# Rows of the table: (label, style, extra environment of the step driver). deepmd twice: the
# driver's default model is DeePMD-kit's small test model; the paper-shaped water model
# (embedding 25-50-100, axis 16, fitting 240x3) is what users run, and its fitting net weighs.
WATER_MODEL = "tests/deepmd_water_synthetic.yaml"
ROWS = {"deepmd": [("deepmd, deeppot_sea test model", "deepmd", {}),
                   ("deepmd, paper-shaped water model", "deepmd", {"PK_DEEPMD_STEPS_MODEL": WATER_MODEL})]}
SHARED_WITHIN = 0.05


def configure_and_build(build, styles, jobs):
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", ROOT, "-B", build,
                        "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(ROOT, "cmake/aarch64-linux-gnu.cmake"),
                        "-DCMAKE_BUILD_TYPE=Release", "-DPAIRKIT_LAMMPS=OFF", "-DPAIRKIT_NATIVE=OFF",
                        "-DPAIRKIT_TESTS=ON", "-DPAIRKIT_SVE=ON", "-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON",
                        "-DCMAKE_C_FLAGS=-march=armv8.2-a+sve"],
                       check=True, stdout=subprocess.DEVNULL)
    targets = ["sve_steps_" + s for s in styles] + (["deepmd_water_model"] if "deepmd" in styles else [])
    subprocess.run(["cmake", "--build", build, "-j", str(jobs), "--target"] + targets,
                   check=True, stdout=subprocess.DEVNULL)


def count(build, style, backend, steps, vl, extra_env):
    """{function: (instructions, sve instructions)} and the driver's atom count."""
    exe = os.path.join(build, "bench", "sve", "sve_steps_" + style)
    with tempfile.NamedTemporaryFile(suffix=".txt") as listing:
        env = dict(os.environ, PAIRKIT_SHARED=os.path.join(ROOT, "..", "shared"), PAIRKIT_SOURCE=ROOT)
        env.update({k: os.path.join(build, v) for k, v in extra_env.items()})
        run = subprocess.run([os.path.join(ROOT, "tools", "sve-insn-count.sh"), "--vl", str(vl),
                              "--out", listing.name, "--", exe, backend, str(steps)],
                             env=env, check=True, capture_output=True, text=True)
        m = re.search(r"atoms=(\d+) steps=(\d+)", run.stdout)
        if not m or int(m.group(2)) != steps:
            sys.exit(f"{exe} {backend} {steps}: no 'atoms=N steps={steps}' line in its output:\n"
                     + run.stdout + run.stderr)
        functions = {}
        for line in open(listing.name):
            n, sve, name = line.rstrip("\n").split(" ", 2)
            functions[name] = (int(n), int(sve))
    return functions, int(m.group(1))


def per_atom_step(build, style, backend, extra, vl, extra_env):
    one, atoms = count(build, style, backend, 1, vl, extra_env)
    more, _ = count(build, style, backend, 1 + extra, vl, extra_env)
    scale = 1.0 / (extra * atoms)
    diff = {}
    for name, (n, sve) in more.items():
        n0, sve0 = one.get(name, (0, 0))
        if n > n0:
            diff[name] = ((n - n0) * scale, (sve - sve0) * scale)
    return diff, atoms


def shared_functions(cpu, sve):
    """Names that run under both backends with (nearly) the same count."""
    return {name for name, (n, _) in cpu.items()
            if name in sve and abs(sve[name][0] - n) <= SHARED_WITHIN * max(n, sve[name][0])}


def hot(diff, k=4):
    return sorted(diff.items(), key=lambda item: -item[1][0])[:k]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-a64fx"))
    ap.add_argument("--vl", type=int, default=64, help="SVE vector length in bytes (64: 512-bit)")
    ap.add_argument("--extra-steps", type=int, default=2)
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "sve_insn_counts.md"))
    args = ap.parse_args()
    styles = args.styles.split(",")
    configure_and_build(args.build, styles, args.jobs)

    gcc = subprocess.run(["aarch64-linux-gnu-gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    qemu = subprocess.run(["qemu-aarch64", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    lines = [
        "# SVE backends: dynamic instructions per atom-step against the portable C",
        "",
        f"{datetime.date.today()}; `bench/sve_count.py --vl {args.vl} --extra-steps {args.extra_steps}`; "
        f"{gcc}; {qemu}, `-cpu max,sve-default-vector-length={args.vl}` ({8 * args.vl}-bit SVE).",
        "Both backends from one build: the portable C compiled with `-march=armv8.2-a+sve` "
        "(autovectorised for SVE where GCC can), the sve backend's ACLE kernels with the same flags. "
        "Counts are of the whole compute call (every function it runs), per atom and step; "
        "\"SVE\" is the share of SVE instructions among them. \"Hot kernel\": the functions the sve "
        f"backend replaces (all but those both backends run with counts within {100 * SHARED_WITHIN:.0f}%).",
        "",
        "| style | atoms | whole step: cpu backend instr./atom-step (SVE share) | sve backend (SVE share) "
        "| ratio | hot kernel: cpu | sve | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    details = []
    rows = [row for style in styles for row in ROWS.get(style, [(style, style, {})])]
    for label, style, extra_env in rows:
        result = {}
        for backend in ("cpu", "sve"):
            diff, atoms = per_atom_step(args.build, style, backend, args.extra_steps, args.vl, extra_env)
            total = sum(n for n, _ in diff.values())
            sve = sum(s for _, s in diff.values())
            result[backend] = (diff, total, sve)
        cpu, sv = result["cpu"], result["sve"]
        shared = shared_functions(cpu[0], sv[0])
        visible = sorted(name for name in shared if cpu[0][name][0] >= 0.01 * cpu[1])
        kernel_cpu = sum(n for name, (n, _) in cpu[0].items() if name not in shared)
        kernel_sve = sum(n for name, (n, _) in sv[0].items() if name not in shared)
        lines.append(f"| {label} | {atoms} | {cpu[1]:,.0f} ({100 * cpu[2] / cpu[1]:.0f}%) | "
                     f"{sv[1]:,.0f} ({100 * sv[2] / sv[1]:.0f}%) | {cpu[1] / sv[1]:.2f}x | "
                     f"{kernel_cpu:,.0f} | {kernel_sve:,.0f} | {kernel_cpu / kernel_sve:.2f}x |")
        details.append(f"\n**{label}**, hottest functions (instructions per atom-step, SVE share); "
                       f"shared by both backends (those over 1%), not in the hot kernel: "
                       f"{', '.join('`%s`' % name for name in visible) or 'none'}\n")
        details.append("| backend | function | instr./atom-step | SVE |")
        details.append("|---|---|---|---|")
        for backend in ("cpu", "sve"):
            for name, (n, s) in hot(result[backend][0]):
                details.append(f"| {backend} | `{name}` | {n:,.0f} | {100 * s / n:.0f}% |")
        print("\n".join(lines[-1:]), flush=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines + details) + "\n")
    print("written:", args.out)


if __name__ == "__main__":
    main()
