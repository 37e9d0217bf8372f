"""Shared pieces of the amoeba/pk LAMMPS tests: the LAMMPS AMOEBA water examples
(examples/amoeba of the LAMMPS source tree, copied into each run's directory) and inputs
built from them."""
import math
import os
import re

from pklmp import LAMMPS_SRC, run

EXAMPLES = os.path.join(LAMMPS_SRC, "examples", "amoeba")
PLUGIN_DIR = os.path.dirname(os.environ.get("PK_PLUGIN", ""))
EWALD_KEYWORDS = ("ewald", "ewald-alpha", "pewald-alpha", "pme-grid")


def example(name):
    with open(os.path.join(EXAMPLES, name)) as fh:
        return fh.read()


def has_ewald(key_text):
    return any(line.split()[:1] and line.split()[0].lower() in EWALD_KEYWORDS
               for line in key_text.splitlines())


def box_key_without_ewald():
    """amoeba_water_box.key with its Ewald/PME lines removed (cutoff 7, taper 6)."""
    text = example("amoeba_water_box.key")
    assert has_ewald(text), "the example box key was expected to use Ewald"
    return "".join(line + "\n" for line in text.splitlines()
                   if not (line.split()[:1] and line.split()[0].lower() in EWALD_KEYWORDS))


def set_key(key_text, **values):
    """Replace (or append) key lines; keyword names use _ for -."""
    for name, value in values.items():
        word = name.replace("_", "-")
        line = f"{word} {value}"
        key_text, n = re.subn(rf"^{word}\s.*$", line, key_text, flags=re.M)
        if n == 0:
            key_text += line + "\n"
    return key_text


def replicated(data, n=2):
    """The box data file repeated n times along each axis (n an int, or (nx, ny, nz)): LAMMPS
    `replicate` refuses the per-atom fix property/atom data that atom_style amoeba uses, so
    the data file is replicated."""
    reps = (n, n, n) if isinstance(n, int) else tuple(n)
    copies = reps[0] * reps[1] * reps[2]
    lines = data.splitlines()
    count = {l.split()[1]: int(l.split()[0]) for l in lines
             if len(l.split()) == 2 and l.split()[1] in ("atoms", "bonds", "angles")}
    box = float(next(l.split()[1] for l in lines if l.endswith("xlo xhi")))
    shifts = [(a, b, c) for a in range(reps[0]) for b in range(reps[1]) for c in range(reps[2])]
    offset = {"Atoms": count["atoms"], "Bonds": count["bonds"], "Angles": count["angles"],
              "Tinker Types": count["atoms"]}
    nmol = count["atoms"] // 3
    out, section = [], None
    for line in lines:
        w = line.split()
        if w and not w[0].lstrip("-").replace(".", "").isdigit():
            section = line.strip()
            out.append(line)
        elif len(w) == 2 and w[1] in count:
            out.append(f"{count[w[1]] * copies} {w[1]}")
        elif len(w) == 4 and w[2].endswith("lo"):
            out.append(f"0 {box * reps['xyz'.index(w[2][0])]} {w[2]} {w[3]}")
        elif section in offset and len(w) >= 2:
            for k, sh in enumerate(shifts):
                v = [str(int(w[0]) + k * offset[section])]
                if section == "Atoms":   # id mol type q x y z
                    v += [str(int(w[1]) + k * nmol), w[2], w[3]]
                    v += [f"{float(w[4 + d]) + sh[d] * box:.6f}" for d in range(3)]
                elif section == "Tinker Types":
                    v.append(w[1])
                else:                    # id type atom ids
                    v += [w[1]] + [str(int(x) + k * count["atoms"]) for x in w[2:]]
                out.append(" ".join(v))
        else:
            out.append(line)
    return "\n".join(out) + "\n"


WATER_FILES = ("amoeba_water.prm", "data.water_dimer.amoeba", "data.water_hexamer.amoeba",
               "data.water_box.amoeba")


def water_files(**extra):
    files = {name: example(name) for name in WATER_FILES}
    files["amoeba_water.key"] = example("amoeba_water.key")
    files["box.key"] = box_key_without_ewald()
    files.update(extra)
    return files


# The ubiquitin example (9,737 atoms: the protein in water, AMOEBA's bonded styles and fixes).
# Its key's Ewald/PME lines; pme-order too, which amoeba/pk refuses with the others.
UBIQUITIN_PME_KEYWORDS = ("ewald", "ewald-alpha", "pewald-alpha", "pme-grid", "pme-order")
UBIQUITIN_FILES = ("amoeba_ubiquitin.prm", "data.ubiquitin", "bitorsion.ubiquitin.data")


def ubiquitin_files():
    """The ubiquitin example's files, its key (same name) without the Ewald/PME lines."""
    files = {name: example(name) for name in UBIQUITIN_FILES}
    key = example("amoeba_ubiquitin.key").splitlines()
    kept = [line for line in key
            if not (line.split()[:1] and line.split()[0].lower() in UBIQUITIN_PME_KEYWORDS)]
    assert len(key) - len(kept) == len(UBIQUITIN_PME_KEYWORDS), "the example key changed"
    files["amoeba_ubiquitin.key"] = "\n".join(kept) + "\n"
    return files


# A water system with pair forces only (bonded styles zeroed after read_data).
PAIR_ONLY = """units           real
boundary        @BOUNDARY@
atom_style      amoeba
bond_style      class2
angle_style     amoeba
dihedral_style  none
fix             amtype all property/atom i_amtype ghost yes
fix             extra all property/atom i_amgroup d_redID d_pval ghost yes
fix             extra2 all property/atom i_polaxe d2_xyzaxis 3
read_data       @DATA@ fix amtype NULL "Tinker Types"
bond_style      zero
bond_coeff      *
angle_style     zero
angle_coeff     *
pair_style      @PAIR@
pair_coeff      * * amoeba_water.prm @KEY@
special_bonds   lj/coul 0.5 0.5 0.5 one/five yes
"""
# One force evaluation of it: the terms through compute pair, per-atom energies and the pair
# virial.
RUN0 = "\nplugin load {plugin}\n" + PAIR_ONLY + """compute         pa all pair @COMPUTE@
compute         vp all pressure NULL pair
@EXTRA@
thermo_style    custom step pe c_pa[1] c_pa[4] c_pa[5] c_vp[*] @THERMO@
thermo_modify   format float %.15g
dump            f all custom 1 forces.dump id fx fy fz
dump_modify     f sort id format float %.17g
run             0
"""


def pair_only(pair, key, data, boundary):
    """The input text of PAIR_ONLY for these settings."""
    return (PAIR_ONLY.replace("@BOUNDARY@", boundary).replace("@DATA@", data)
            .replace("@PAIR@", pair).replace("@KEY@", key))


def run0(pair, key="box.key", data="data.water_box.amoeba", boundary="p p p", extra="",
         thermo="", compute=None, files=None, edit=None, **kwargs):
    """Run RUN0; compute pair uses the pair style's name (amoeba or amoeba/pk) unless
    given; edit(script) may change the script's text."""
    name = compute or pair.split()[0]
    script = (RUN0.replace("@BOUNDARY@", boundary).replace("@DATA@", data)
              .replace("@PAIR@", pair).replace("@KEY@", key).replace("@COMPUTE@", name)
              .replace("@EXTRA@", extra).replace("@THERMO@", thermo))
    if edit:
        script = edit(script)
    return run(script, files=files or water_files(), **kwargs)


def terms(result):
    """E_pair and the three AMOEBA terms (compute pair entries 1, 4, 5) at step 0."""
    row = result.thermo()[0]
    return {"E_pair": row["PotEng"], "hal": row["c_pa[1]"], "mpole": row["c_pa[4]"],
            "polar": row["c_pa[5]"]}


def force_deviation(got, ref):
    """max |F - F_ref| over atoms and components, divided by the largest |F_ref|."""
    fmax = max(abs(r[k]) for r in ref.values() for k in ("fx", "fy", "fz"))
    dev = max(abs(got[i][k] - r[k]) for i, r in ref.items() for k in ("fx", "fy", "fz"))
    return dev / fmax, fmax


def nve_script(pair, timestep, steps, every):
    """The LAMMPS water-box example (NVE, bonded terms, from T = 0) with `pair`, its key
    without Ewald (box.key), `steps` steps of `timestep` fs, thermo every `every` steps."""
    text = re.sub(r"^pair_style\s+amoeba\s*$", "plugin load {plugin}\npair_style " + pair,
                  example("in.water_box.amoeba"), flags=re.M)
    text = text.replace("amoeba_water_box.key", "box.key")
    text = re.sub(r"^thermo\s+10$", f"thermo {every}\nthermo_modify format float %.15g\n"
                  f"timestep {timestep}", text, flags=re.M)
    return re.sub(r"^run\s+100$", f"run {steps}", text, flags=re.M)


def nve_energies(res, timestep):
    """Times (ps) and TotEng of an nve_script run's thermo rows."""
    rows = res.thermo()
    return [r["Step"] * timestep * 1e-3 for r in rows], [r["TotEng"] for r in rows]


def nve_fit(t, e):
    """Drift (slope of a straight-line fit, per ps) and fluctuation (RMS about the fit)."""
    n = len(t)
    tm, em = sum(t) / n, sum(e) / n
    slope = sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t)
    rms = math.sqrt(sum((b - em - slope * (a - tm)) ** 2 for a, b in zip(t, e)) / n)
    return slope, rms


def excursion(e, upto=None):
    """Largest |E - E(0)| over the first `upto` rows (all by default)."""
    return max(abs(v - e[0]) for v in (e if upto is None else e[:upto]))
