#!/usr/bin/env python3
"""A small synthetic n2p2 model directory for fuzzing (standard library only).

  python3 fuzz/make_n2p2_seeds.py

Writes fuzz/data/n2p2/{input.nn, scaling.data, weights.001.data, weights.008.data}: H and O,
every symmetry function type hdnnp/pk reads (2, 3, 9, 12, 13, 20-25; 10 for H, 9 for O),
hidden layers of 3 and 2 nodes, weights from a fixed linear congruential generator. The
fuzz harnesses keep these files fixed while they mutate one of them, and they are also the
seeds: a model of ~4 kB loads in tens of microseconds, where the n2p2 water model (~180 kB
with its two weights files) gives the fuzzer only ~150 inputs a second."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "n2p2")
SYMFUNCS = """\
symfunction_short H 2 O 0.5 0.3 4.0
symfunction_short H 2 H 0.1 1.0 3.5
symfunction_short H 3 O H 0.1 -1 2.0 4.0
symfunction_short H 9 O O 0.05 1 1.0 4.0 0.5
symfunction_short H 12 0.3 0.5 4.0
symfunction_short H 13 0.05 0.0 1 2.0 4.0
symfunction_short H 20 O 0.5 4.0 p2
symfunction_short H 21 H O 0.0 4.0 30 150 p3a
symfunction_short H 24 0.0 3.5 -60 60 e
symfunction_short H 23 0.3 4.0 p1
symfunction_short O 2 H 0.5 0.0 4.0
symfunction_short O 3 H H 0.1 1 1.5 3.5
symfunction_short O 9 H O 0.02 -1 3.0 4.0
symfunction_short O 13 0.02 0.0 -1 1.0 4.0
symfunction_short O 2 O 0.3 1.5 3.5
symfunction_short O 22 H H 0.8 4.0 60 180 p4
symfunction_short O 25 0.0 4.0 90 270 p2a
symfunction_short O 20 O 0.0 3.5 p1a
symfunction_short O 23 -4.0 4.0 e
"""
NSF = {"H": 10, "O": 9}
Z = {"H": 1, "O": 8}
HIDDEN = [3, 2]


class Lcg:
    def __init__(self, seed):
        self.s = seed

    def __call__(self):
        self.s = (1103515245 * self.s + 12345) % 2**31
        return self.s / 2**31


def main():
    os.makedirs(OUT, exist_ok=True)
    rnd = Lcg(20)
    with open(os.path.join(OUT, "input.nn"), "w") as fp:
        fp.write("# synthetic model for fuzzing\nnumber_of_elements 2\nelements H O\n"
                 "cutoff_type 2\nscale_symmetry_functions\ncenter_symmetry_functions\n"
                 "scale_min_short 0.0\nscale_max_short 1.0\n"
                 "global_hidden_layers_short 2\nglobal_nodes_short 3 2\n"
                 "global_activation_short t s l\n" + SYMFUNCS)
    with open(os.path.join(OUT, "scaling.data"), "w") as fp:
        fp.write("# e sf min max mean sigma\n")
        for e, el in enumerate(("H", "O")):
            for s in range(NSF[el]):
                lo, hi = -0.1 * rnd(), 2.0 + 3.0 * rnd()
                fp.write("%d %d %.6g %.6g %.6g %.6g\n" % (e + 1, s + 1, lo, hi, 0.3 * hi, 0.2 * hi))
    for el in ("H", "O"):
        sizes = [NSF[el]] + HIDDEN + [1]
        with open(os.path.join(OUT, "weights.%03d.data" % Z[el]), "w") as fp:
            k = 0
            for l in range(1, len(sizes)):
                for _ in range(sizes[l - 1] * sizes[l]):
                    k += 1
                    fp.write("%.6g a %d\n" % (rnd() - 0.5, k))
                for _ in range(sizes[l]):
                    k += 1
                    fp.write("%.6g b %d\n" % (0.5 * rnd() - 0.25, k))


if __name__ == "__main__":
    main()
