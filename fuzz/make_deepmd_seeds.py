#!/usr/bin/env python3
"""Small DeePMD-kit models for fuzzing, cut from the synthetic test models (PyYAML only).

  python3 fuzz/make_deepmd_seeds.py

The synthetic models of tests/unit/deepmd/data have sel [16, 24, 16], embedding nets
(4, 8[, 16]) and fitting nets (10 or 12 units); their statistics (davg/dstd, one row per slot)
and fitting weights are most of their text. Keeping 2 slots per neighbour type, the first
types (O, H), embedding layers (4, 8) and fitting nets of 4, 4, 1 units, with lists in flow
style, numbers to 4 significant digits (seeds, not references) and without the bookkeeping
keys the reader never looks at (UNREAD), gives models of a few kB that the fuzzer loads
about a thousand times a second. Outputs:
  fuzz/data/deepmd_tiny.yaml               fixed model of fuzz_deepmd_options (synth_b, O only)
  fuzz/corpus/deepmd_yaml/seed_{a,b}.yaml  seeds (O and H; type_one_side false / true)
  fuzz/corpus/deepmd_json/seed_{a,b}.json  the same as JSON (arrays written out)
  fuzz/corpus/deepmd_json/seed_dp_a.json   the JSON dict of synth_a.dp (arrays by name)
"""
import json
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "unit", "deepmd", "data")
KEEP = 2
FIT = 4
UNREAD = {"@is_variable", "@version", "dtype", "trainable", "use_timestep", "layer_name",
          "var_name", "software", "time", "model_def_script"}


def strip(x):
    """Drop the bookkeeping keys deepmd/pk's reader never looks at."""
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in UNREAD}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def shrink(path, NT):
    """The model at path cut to NT types (see above)."""
    d = yaml.safe_load(open(path))
    m = d["model"]
    desc, fit = m["descriptor"], m["fitting"]
    nt = len(desc["sel"])
    start = [sum(desc["sel"][:t]) for t in range(nt)]
    slots = [start[t] + k for t in range(NT) for k in range(KEEP)]
    for name in ("davg", "dstd"):
        v = desc["@variables"][name]
        v["value"] = [[row[k] for k in slots] for row in v["value"][:NT]]
    desc["sel"] = [KEEP] * NT
    emb = desc["embeddings"]
    if emb["ndim"] == 2:   # one net per (centre, neighbour) type pair, row-major
        emb["networks"] = [emb["networks"][i * nt + j] for i in range(NT) for j in range(NT)]
    else:
        emb["networks"] = emb["networks"][:NT]
    desc["exclude_types"] = [p for p in desc["exclude_types"] if max(p) < NT] or (
        [[0, 1]] if desc["exclude_types"] else [])
    fit["nets"]["networks"] = fit["nets"]["networks"][:NT]
    fv = fit["@variables"]
    fv["bias_atom_e"]["value"] = fv["bias_atom_e"]["value"][:NT]
    for name in ("out_bias", "out_std"):
        v = m["@variables"][name]
        v["value"] = [row[:NT] for row in v["value"]]
    # embedding nets: the first two layers (4, 8 outputs); fitting nets: 4, 4, 1 units
    for net in emb["networks"]:
        net["layers"] = net["layers"][:2]
        net["neuron"] = net["neuron"][:2]
    desc["neuron"] = desc["neuron"][:2]
    fit["dim_descrpt"] = desc["neuron"][-1] * desc["axis_neuron"]
    fit["neuron"] = [FIT] * len(fit["neuron"])
    for net in fit["nets"]["networks"]:
        net["neuron"] = [FIT] * len(net["neuron"])
        width = fit["dim_descrpt"]
        for layer in net["layers"]:
            out = min(FIT, len(layer["@variables"]["b"]["value"]))
            lv = layer["@variables"]
            lv["w"]["value"] = [row[:out] for row in lv["w"]["value"][:width]]
            lv["b"]["value"] = lv["b"]["value"][:out]
            if lv.get("idt") is not None:
                lv["idt"]["value"] = lv["idt"]["value"][:out]
            width = out
    for obj in (m, desc, emb, fit, fit["nets"]):
        if "ntypes" in obj:
            obj["ntypes"] = NT
        if "type_map" in obj:
            obj["type_map"] = obj["type_map"][:NT]
    return strip(d)


class Dumper(yaml.SafeDumper):
    """Mappings in block style, lists in flow style, numbers to 4 significant digits."""


Dumper.add_representer(list, lambda dm, v: dm.represent_sequence(
    "tag:yaml.org,2002:seq", v, flow_style=True))
Dumper.add_representer(float, lambda dm, v: dm.represent_scalar(
    "tag:yaml.org,2002:float", "%.4g" % v if "e" in "%.4g" % v or "." in "%.4g" % v
    else "%.4g.0" % v))


def write(d, path):
    with open(path, "w") as fp:
        yaml.dump(d, fp, Dumper=Dumper, width=100, sort_keys=False)


def dp_json(path):
    """The root attribute "json" of a .dp file: HDF5 stores the string in one piece, so it
    is the balanced {...} that starts with {"software"."""
    raw = open(path, "rb").read()
    start = raw.index(b'{"software"')
    depth = 0
    for end in range(start, len(raw)):
        depth += {ord("{"): 1, ord("}"): -1}.get(raw[end], 0)
        if depth == 0:
            return raw[start:end + 1]
    raise ValueError(path + ": unbalanced JSON")


def main():
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "corpus", "deepmd_yaml"), exist_ok=True)
    a = shrink(os.path.join(DATA, "synth_a.yaml"), 2)
    b = shrink(os.path.join(DATA, "synth_b.yaml"), 2)
    write(shrink(os.path.join(DATA, "synth_b.yaml"), 1), os.path.join(HERE, "data", "deepmd_tiny.yaml"))
    write(a, os.path.join(HERE, "corpus", "deepmd_yaml", "seed_a.yaml"))
    write(b, os.path.join(HERE, "corpus", "deepmd_yaml", "seed_b.yaml"))
    js = os.path.join(HERE, "corpus", "deepmd_json")
    os.makedirs(js, exist_ok=True)
    for name, d in (("a", a), ("b", b)):
        with open(os.path.join(js, "seed_%s.json" % name), "w") as fp:
            json.dump(d, fp, separators=(",", ":"))
    with open(os.path.join(js, "seed_dp_a.json"), "wb") as fp:
        fp.write(dp_json(os.path.join(DATA, "synth_a.dp")))


if __name__ == "__main__":
    main()
