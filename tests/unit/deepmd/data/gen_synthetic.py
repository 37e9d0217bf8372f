"""Synthetic DeePMD-kit v3 models and DeePMD-kit's own atomic energies for them.

Writes synth_{a,b,c}.yaml (+ .dp) and synth-testcase.yaml (the layout of
DeePMD-kit's deeppot_sea-testcase.yaml, atomic energies only: the numpy backend of
DeePMD-kit gives no forces; test_deepmd_synthetic checks those by finite differences).

  a: 3 types, type_one_side false (ndim-2 embedding collection), exclude_types [[0, 2]],
     env_protection 0.05, resnet_dt (idt) in embedding and fitting, embedding [4, 8]
     (a width-doubling resnet layer), per-slot davg/dstd, nonzero out_bias.
  b: 3 types, type_one_side true, sigmoid embedding [4, 8, 16], softplus fitting,
     per-slot davg/dstd, nonzero out_bias.
Weights are DeePMD-kit's seeded initialisation; statistics and biases are drawn from a
seeded generator, so the files are reproducible. No configuration overflows sel.

Run: python gen_synthetic.py   (needs `pip install deepmd-kit` >= 3; numpy backend only)
"""
import copy

import numpy as np
import yaml
from deepmd.dpmodel.model.model import get_model
from deepmd.dpmodel.utils.serialization import save_dp_model
from deepmd.infer import DeepPot

TYPES = ["O", "H", "C"]
SEL = [16, 24, 16]
RCUT = 4.0

MODELS = {
    "a": {
        "type_map": TYPES,
        "descriptor": {"type": "se_e2_a", "sel": SEL, "rcut_smth": 1.0, "rcut": RCUT,
                       "neuron": [4, 8], "axis_neuron": 3, "type_one_side": False,
                       "resnet_dt": True, "exclude_types": [[0, 2]],
                       "env_protection": 0.05, "activation_function": "tanh", "seed": 3},
        "fitting_net": {"type": "ener", "neuron": [10, 10], "resnet_dt": True, "seed": 4,
                        "activation_function": "tanh"},
    },
    "b": {
        "type_map": TYPES,
        "descriptor": {"type": "se_e2_a", "sel": SEL, "rcut_smth": 0.5, "rcut": RCUT,
                       "neuron": [4, 8, 16], "axis_neuron": 4, "type_one_side": True,
                       "resnet_dt": False, "activation_function": "sigmoid", "seed": 5},
        "fitting_net": {"type": "ener", "neuron": [12, 12], "resnet_dt": False, "seed": 6,
                        "activation_function": "softplus"},
    },
}


def make(name, cfg, per_slot, rng):
    """Statistics per (centre type, neighbour type), or per slot when per_slot: DeePMD-kit
    trains with the former; the latter makes the energy jump when two neighbours of a type
    swap slots, so it serves energy checks only."""
    model = get_model(copy.deepcopy(cfg))
    d = model.serialize()
    var = d["descriptor"]["@variables"]
    nt, nnei, _ = var["davg"].shape
    sec = np.concatenate([[0], np.cumsum(SEL)])
    blk = np.searchsorted(sec, np.arange(nnei), side="right") - 1
    shape = (nt, nnei) if per_slot else (nt, nt)
    a0, s0 = 0.15 + 0.05 * rng.random(shape), 0.2 + 0.1 * rng.random(shape)
    s1 = 0.3 + 0.1 * rng.random(shape + (3,))
    if not per_slot:
        a0, s0, s1 = a0[:, blk], s0[:, blk], s1[:, blk]
    davg = np.zeros((nt, nnei, 4))
    dstd = np.ones((nt, nnei, 4))
    davg[:, :, 0], dstd[:, :, 0], dstd[:, :, 1:] = a0, s0, s1
    var["davg"], var["dstd"] = davg, dstd
    d["fitting"]["@variables"]["bias_atom_e"] = rng.normal(size=(nt, 1))
    d["@variables"]["out_bias"] = 0.1 * rng.normal(size=(1, nt, 1))
    data = {"model": d, "backend": "dpmodel", "model_def_script": cfg}
    save_dp_model(f"synth_{name}.yaml", copy.deepcopy(data))
    save_dp_model(f"synth_{name}.dp", copy.deepcopy(data))


def configs(rng):
    """A periodic box and a non-periodic cluster of 24 atoms of the three types."""
    out = []
    for box in (np.diag([7.0, 7.5, 8.0]), None):
        while True:
            x = rng.random((24, 3)) * (7.0 if box is not None else 5.0)
            t = rng.integers(0, 3, size=24)
            imgs = [np.array([i, j, k]) @ box for i in (-1, 0, 1) for j in (-1, 0, 1)
                    for k in (-1, 0, 1)] if box is not None else [np.zeros(3)]
            ok = True
            for a in range(24):
                cnt = np.zeros(3, int)
                for s in imgs:
                    r = np.linalg.norm(x + s - x[a], axis=1)
                    m = (r < RCUT) & (r > 1e-9)
                    np.add.at(cnt, t[m], 1)
                    if (r[r > 1e-9] < 0.9).any():
                        ok = False
                ok = ok and (cnt <= SEL).all()
            if ok:
                break
        out.append((x, t, box))
    return out


def main():
    rng = np.random.default_rng(20261122)
    for name, cfg in MODELS.items():
        make(name, cfg, False, rng)
    make("c", MODELS["a"], True, rng)
    cases = configs(rng)
    doc = {"note": "atomic energies from DeePMD-kit " + __import__("deepmd").__version__
           + " (numpy backend) for synth_a.yaml, synth_b.yaml and synth_c.yaml", "models": {}}
    for name in list(MODELS) + ["c"]:
        dp = DeepPot(f"synth_{name}.yaml")
        res = []
        for x, t, box in cases:
            e, f, v, ae, av = dp.eval(x.reshape(1, -1),
                                      None if box is None else box.reshape(1, -1),
                                      t.tolist(), atomic=True)
            res.append({"coord": [float(c) for c in x.ravel()], "atype": t.tolist(),
                        "box": None if box is None else [float(c) for c in box.ravel()],
                        "atomic_energy": [float(c) for c in ae.ravel()]})
        doc["models"][name] = {"results": res}
    with open("synth-testcase.yaml", "w") as fp:
        yaml.safe_dump(doc, fp, default_flow_style=None, width=100)


if __name__ == "__main__":
    main()
