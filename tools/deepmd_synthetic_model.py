#!/usr/bin/env python3
"""Deterministic synthetic DeePMD-kit v3 models of realistic size (se_e2_a + ener), written
as the YAML that `dp convert-backend model.pth model.yaml` produces. Standard library only.

  tools/deepmd_synthetic_model.py water OUT.yaml    O/H, the shape of Guo et al.'s water model
  tools/deepmd_synthetic_model.py copper OUT.yaml   Cu, the shape of their copper model
  tools/deepmd_synthetic_model.py water-small OUT.yaml   the water design, small networks
  ... --sel 1000                                     the same model with another sel
  ... --precision float32                            a float32 model (DeePMD-kit trains
        those too): every precision field float32, every array's values rounded to float32

  water:  rcut 6, rcut_smth 0.5, sel [46, 92], embedding [25, 50, 100], axis 16,
          fitting [240, 240, 240] (resnet_dt), type_one_side
  copper: rcut 8, rcut_smth 0.5, sel [500], embedding [32, 64, 128], axis 16,
          fitting [240, 240, 240] (resnet_dt)
  water-small: as water with embedding [8, 16, 32], axis 4, fitting [32, 32, 32]

The weights are random (a seeded Mersenne Twister: the same file on every machine) in the
ranges DeePMD-kit initialises them, except for the pieces that make the energy surface
usable for molecular dynamics (not physical: an untrained model binds no molecules):

* Statistics. davg/dstd are DeePMD-kit's environment statistics of a reference structure
  (the water box of tools/water_box.py, or the perfect fcc lattice a = 3.634 A): per centre
  type, mean and standard deviation of s = w(r)/r over all slots, padding included. The
  angular std (of w(r) x_a / r^2) is doubled, so that |R^[1:4]| < R^[0] for close
  neighbours: the squares of sums in D then cannot pull a third atom into a close pair.
* Embedding features. First-layer units are tanh(w (s^ - c)), slopes w ~ N(0, emb_w0) and
  centres c spread over the s^ of distances rcut .. feature_r, so the nets vary over the
  neighbour shells (and steeply enough that the table error at table_step 0.01 is far above
  round-off) and are flat closer in.
* A repulsive core. Embedding output 0 is G_0(s^) = 1 + tanh(k (s^ - s^_c)), about 0 beyond
  core_r and 2 inside (first-layer unit 0 carries the tanh, the resnet shortcuts carry it
  up, the later tanh units of that output are fixed at 0 and 1). T[:,0] then sums close
  neighbours only and D[0] = |T[:,0]|^2 grows as one approaches. Fitting unit 0 is
  tanh(kappa D[0]), passed unchanged through the resnet layers (its own tanh units are 0)
  to the output with weight A: E_core = A tanh(kappa D[0]), ~3 eV at 0.6 A for water.
  The D entries built from core outputs feed nothing else.
The rest is a smooth random function of the environment; out_w sets its amplitude (water:
forces ~0.1 eV/A RMS, and a 1536-atom box stays near 300 K over 1 ps of NVE).
"""
import argparse
import math
import random
import struct

import water_box

# Shared design parameters (see above): the core (centre core_r, slope core_k in s^, kappa,
# height A), the spread of the embedding features, the scales of the fitting weights.
DESIGN = dict(rcut_smth=0.5, axis=16, fitting=[240, 240, 240], core_k=0.3, core_kappa=2.0,
              core_a=50.0, emb_w0=5.0, feature_r=2.5, fit_w0=3.0, out_w=0.02, angular_std=2.0)
MODELS = {
    "water": dict(DESIGN, type_map=["O", "H"], rcut=6.0, sel=[46, 92], neuron=[25, 50, 100],
                  bias=[-4.0, -2.0], core_r=0.6, seed=20261201),
    # The water design with small networks (~0.3 MB of YAML): potentials/deepmd/, examples.
    "water-small": dict(DESIGN, type_map=["O", "H"], rcut=6.0, sel=[46, 92], neuron=[8, 16, 32],
                        axis=4, fitting=[32, 32, 32], bias=[-4.0, -2.0], core_r=0.6,
                        seed=20261203),
    "copper": dict(DESIGN, type_map=["Cu"], rcut=8.0, sel=[500], neuron=[32, 64, 128],
                   bias=[-3.5], core_r=1.8, seed=20261202),
}


# ---- environment statistics -------------------------------------------------------------

def switch(r, rs, rc):
    if r <= rs:
        return 1.0
    if r >= rc:
        return 0.0
    u = (r - rs) / (rc - rs)
    return u * u * u * (-6 * u * u + 15 * u - 10) + 1


def statistics(cfg, atoms, box):
    """Per centre type: (davg of s, dstd of s, dstd of the angular rows), over every slot of
    every atom of that type (padding slots are zero rows), as DeePMD-kit computes them."""
    rs, rc, nnei = cfg["rcut_smth"], cfg["rcut"], sum(cfg["sel"])
    nt = len(cfg["type_map"])
    acc = [[0.0, 0.0, 0.0, 0] for _ in range(nt)]   # sum s, sum s^2, sum |a|^2, slots
    for i, (ti, *xi) in enumerate(atoms):
        a = acc[ti]
        a[3] += nnei
        for j, (tj, *xj) in enumerate(atoms):
            d = [xj[c] - xi[c] for c in range(3)]
            d = [v - box * round(v / box) for v in d]      # minimum image (box > 2 rc)
            r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
            if j == i or r2 >= rc * rc:
                continue
            r = math.sqrt(r2)
            w = switch(r, rs, rc)
            s = w / r
            a[0] += s
            a[1] += s * s
            a[2] += (w / r2) ** 2 * r2
    out = []
    for sr, sr2, sa2, n in acc:
        avg = sr / n
        out.append((avg, max(math.sqrt(sr2 / n - avg * avg), 1e-2),
                    max(math.sqrt(sa2 / (3 * n)), 1e-2)))
    return out


def reference_structure(name, cfg):
    """(atoms as (model type, x, y, z), cubic box length)."""
    if name.startswith("water"):
        L, atoms = water_box.molecules(4)          # 64 molecules: box 12.4 A > 2 rcut
        return [(t - 1, x, y, z) for t, x, y, z in atoms], L
    a, n = 3.634, 5                                 # fcc Cu, 500 atoms, box 18.2 A > 2 rcut
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    atoms = [(0, (i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a)
             for i in range(n) for j in range(n) for k in range(n) for b in basis]
    return atoms, n * a


# ---- weights ----------------------------------------------------------------------------

def matrix(rng, nin, nout, std):
    return [[rng.gauss(0.0, std) for _ in range(nout)] for _ in range(nin)]


def vector(rng, n, mean, std):
    return [rng.gauss(mean, std) for _ in range(n)]


def layer(w, b, act, resnet, idt=None):
    return {"@class": "Layer", "@version": 1, "activation_function": act, "bias": True,
            "precision": "float64", "resnet": resnet, "use_timestep": idt is not None,
            "@variables": {"w": Array(w), "b": Array(b),
                           "idt": Array(idt) if idt is not None else None}}


def embedding_net(rng, cfg, s_pad, s_feat, s_core):
    """1 -> n1 -> n2 -> n3 (resnet doubling), output 0 = 1 + tanh(k (s - s_core)). The
    other first-layer units are tanh(w (s - c)) with slopes w ~ N(0, emb_w0) and centres c
    spread uniformly over [s_pad, s_feat], the normalised s of the neighbour distances
    the embedding resolves (rcut down to feature_r)."""
    n1, n2, n3 = cfg["neuron"]
    k = cfg["core_k"]
    w1 = matrix(rng, 1, n1, cfg["emb_w0"])
    b1 = [-w * rng.uniform(s_pad, s_feat) for w in w1[0]]
    w1[0][0], b1[0] = k, -k * s_core
    w2 = matrix(rng, n1, n2, 1.0 / math.sqrt(n1 + n2))
    b2 = vector(rng, n2, 0.0, 1.0)
    w3 = matrix(rng, n2, n3, 1.0 / math.sqrt(n2 + n3))
    b3 = vector(rng, n3, 0.0, 1.0)
    # The core feature h1[0] reaches outputs 0, n1, n2, n2 + n1 only through the shortcuts.
    w2[0] = [0.0] * n2
    w3[0] = [0.0] * n3
    w3[n1] = [0.0] * n3
    for row in w2:
        row[0] = 0.0
    for row in w3:
        row[0] = 0.0
    b2[0], b3[0] = 0.0, 20.0        # tanh(0) = 0, tanh(20) = 1 in double
    layers = [layer(w1, b1, "tanh", True), layer(w2, b2, "tanh", True),
              layer(w3, b3, "tanh", True)]
    return {"@class": "EmbeddingNetwork", "@version": 2, "activation_function": "tanh",
            "bias": True, "in_dim": 1, "neuron": cfg["neuron"], "precision": "float64",
            "resnet_dt": False, "layers": layers}


def fitting_net(rng, cfg):
    """nd -> 240 -> 240 -> 240 (resnet_dt) -> 1; unit 0 = tanh(kappa D[0]) to the output."""
    ng, ax = cfg["neuron"][-1], cfg["axis"]
    nd = ng * ax
    f1, f2, f3 = cfg["fitting"]
    w1 = matrix(rng, nd, f1, cfg["fit_w0"] / math.sqrt(nd + f1))
    b1 = vector(rng, f1, 0.0, 1.0)
    n1, n2 = cfg["neuron"][0], cfg["neuron"][1]
    core = {0, n1, n2, n1 + n2}         # embedding outputs that carry the core step
    for m in range(ng):
        for a in range(ax):
            if m in core or a in core:
                w1[m * ax + a] = [0.0] * f1
    for row in w1:
        row[0] = 0.0
    w1[0][0], b1[0] = cfg["core_kappa"], 0.0
    hidden = [layer(w1, b1, "tanh", True)]
    nin = f1
    for nout in (f2, f3):
        w = matrix(rng, nin, nout, 1.0 / math.sqrt(nin + nout))
        b = vector(rng, nout, 0.0, 1.0)
        idt = vector(rng, nout, 0.1, 0.001)
        w[0] = [0.0] * nout
        for row in w:
            row[0] = 0.0
        b[0] = 0.0
        hidden.append(layer(w, b, "tanh", True, idt))
        nin = nout
    wo = matrix(rng, nin, 1, cfg["out_w"])
    wo[0][0] = cfg["core_a"]
    hidden.append(layer(wo, [rng.gauss(0.0, 1.0)], "none", False))
    return {"@class": "FittingNetwork", "@version": 1, "activation_function": "tanh",
            "bias_out": True, "in_dim": nd, "neuron": cfg["fitting"], "out_dim": 1,
            "precision": "float64", "resnet_dt": True, "layers": hidden}


def model(name, sel=None):
    """The model dict; sel replaces the model's sel (same networks and statistics)."""
    cfg = MODELS[name]
    rng = random.Random(cfg["seed"])
    stats = statistics(cfg, *reference_structure(name, cfg))
    if sel:
        cfg = dict(cfg, sel=sel)
    nt, nnei = len(cfg["type_map"]), sum(cfg["sel"])
    davg = [[[st[0], 0.0, 0.0, 0.0]] * nnei for st in stats]
    dstd = [[[st[1]] + [cfg["angular_std"] * st[2]] * 3] * nnei for st in stats]
    # Core centre in normalised s, with the statistics averaged over centre types.
    avg = sum(st[0] for st in stats) / nt
    std = sum(st[1] for st in stats) / nt
    s_core = (1.0 / cfg["core_r"] - avg) / std
    s_feat = (1.0 / cfg["feature_r"] - avg) / std
    emb = [embedding_net(rng, cfg, -avg / std, s_feat, s_core) for _ in range(nt)]
    fit = [fitting_net(rng, cfg) for _ in range(nt)]
    ng, ax = cfg["neuron"][-1], cfg["axis"]
    descriptor = {
        "@class": "Descriptor", "@version": 2, "type": "se_e2_a",
        "@variables": {"davg": Array(davg), "dstd": Array(dstd)},
        "activation_function": "tanh", "axis_neuron": ax,
        "embeddings": {"@class": "NetworkCollection", "@version": 1, "ndim": 1,
                       "network_type": "embedding_network", "ntypes": nt, "networks": emb},
        "env_mat": {"rcut": cfg["rcut"], "rcut_smth": cfg["rcut_smth"]},
        "env_protection": 0.0, "exclude_types": [], "neuron": cfg["neuron"],
        "precision": "float64", "rcut": cfg["rcut"], "rcut_smth": cfg["rcut_smth"],
        "resnet_dt": False, "sel": cfg["sel"], "set_davg_zero": False, "spin": None,
        "trainable": True, "type_map": cfg["type_map"], "type_one_side": True}
    fitting = {
        "@class": "Fitting", "@version": 2, "type": "ener",
        "@variables": {"bias_atom_e": Array([[b] for b in cfg["bias"]]),
                       "aparam_avg": None, "aparam_inv_std": None, "fparam_avg": None,
                       "fparam_inv_std": None},
        "activation_function": "tanh", "atom_ener": None, "dim_descrpt": ng * ax,
        "dim_out": 1, "exclude_types": [], "layer_name": None, "mixed_types": False,
        "nets": {"@class": "NetworkCollection", "@version": 1, "ndim": 1,
                 "network_type": "fitting_network", "ntypes": nt, "networks": fit},
        "neuron": cfg["fitting"], "ntypes": nt, "numb_aparam": 0, "numb_fparam": 0,
        "precision": "float64", "rcond": None, "resnet_dt": True, "spin": None,
        "tot_ener_zero": False, "trainable": [True] * (len(cfg["fitting"]) + 1),
        "type_map": cfg["type_map"], "use_aparam_as_mask": False, "var_name": "energy"}
    return {
        "@variables": {}, "backend": "dpmodel", "software": "pairkit",
        "note": f"synthetic {name} model from tools/deepmd_synthetic_model.py "
                f"(seed {cfg['seed']}); not trained, for tests and benchmarks only",
        "model": {"@class": "Model", "@version": 2, "type": "standard",
                  "@variables": {"out_bias": Array([[[0.0] for _ in range(nt)]]),
                                 "out_std": Array([[[1.0] for _ in range(nt)]])},
                  "atom_exclude_types": [], "pair_exclude_types": [],
                  "preset_out_bias": None, "rcond": None, "type_map": cfg["type_map"],
                  "descriptor": descriptor, "fitting": fitting},
        "model_def_script": model_def_script(cfg)}


def model_def_script(cfg):
    """The model section of the DeePMD-kit input script that describes this model: what
    `dp convert-backend` stores beside the weights (a .pb keeps it as its training script,
    which `dp compress` rebuilds the model from; a .pth rebuilds the model from it)."""
    return {
        "type_map": cfg["type_map"],
        "descriptor": {"type": "se_e2_a", "sel": cfg["sel"], "rcut_smth": cfg["rcut_smth"],
                       "rcut": cfg["rcut"], "neuron": cfg["neuron"], "axis_neuron": cfg["axis"],
                       "type_one_side": True, "resnet_dt": False,
                       "activation_function": "tanh", "precision": "float64"},
        "fitting_net": {"type": "ener", "neuron": cfg["fitting"], "resnet_dt": True,
                        "activation_function": "tanh", "precision": "float64"}}


# ---- YAML -------------------------------------------------------------------------------

class Array:
    """An np.ndarray in DeePMD-kit's serialization (value as nested lists)."""

    def __init__(self, value, dtype="float64"):
        self.value = value
        self.dtype = dtype


def to_float32(v):
    """v with every "precision" float32 and every array's values rounded to float32."""
    def rounded(x):
        if isinstance(x, list):
            return [rounded(y) for y in x]
        return struct.unpack("f", struct.pack("f", x))[0]
    if isinstance(v, Array):
        return Array(rounded(v.value), "float32")
    if isinstance(v, dict):
        return {k: "float32" if k == "precision" else to_float32(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_float32(x) for x in v]
    return v


def scalar(v):
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return f'"{v}"' if v.startswith("@") else v


def flow(v):
    if isinstance(v, list):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    return scalar(v)


def emit(obj, indent, out):
    pad = "  " * indent
    for key, v in obj.items():
        k = scalar(key)
        if isinstance(v, Array):
            out.append(f"{pad}{k}:")
            out.append(f'{pad}  "@class": np.ndarray')
            out.append(f'{pad}  "@is_variable": true')
            out.append(f'{pad}  "@version": 1')
            out.append(f"{pad}  dtype: {v.dtype}")
            out.append(f"{pad}  value: {flow(v.value)}")
        elif isinstance(v, dict):
            out.append(f"{pad}{k}:" + ("" if v else " {}"))
            emit(v, indent + 1, out)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            out.append(f"{pad}{k}:")
            for item in v:
                sub = []
                emit(item, indent + 2, sub)
                sub[0] = f"{pad}  - " + sub[0].lstrip()
                out.extend(sub)
        else:
            out.append(f"{pad}{k}: {flow(v)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", choices=sorted(MODELS))
    ap.add_argument("out")
    ap.add_argument("--sel", type=lambda v: [int(x) for x in v.split(",")],
                    help="another sel (comma-separated per type), e.g. for more padding; the "
                         "networks and statistics stay those of the model")
    ap.add_argument("--precision", choices=["float64", "float32"], default="float64",
                    help="float32: the same model as float32 (precision fields, and the "
                         "values of every array rounded to float32)")
    opt = ap.parse_args()
    obj = model(opt.name, opt.sel)
    if opt.precision == "float32":
        obj = to_float32(obj)
    lines = []
    emit(obj, 0, lines)
    with open(opt.out, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
