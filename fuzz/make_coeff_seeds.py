#!/usr/bin/env python3
"""Seeds of the structured harnesses (standard library only): python3 fuzz/make_coeff_seeds.py

  corpus/mdpd_coeff:     LAMMPS examples/PACKAGES/dpd-meso/mdpd/in.mdpd (pair_style mdpd 1.0
                         1.0 9872598, pair_coeff 1 1 -40 25 18.0 1.0 0.75, rhosum 0.75) and a
                         two-type variant, in the byte layout of fuzz_mdpd_coeff.c
  corpus/deepmd_options: tabulate yes/no with the default and a fine table_step/table_rmin
  corpus/backend_words:  valid and invalid backend/precision words and memory caps"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(reader, name, data):
    d = os.path.join(HERE, "corpus", reader)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fp:
        fp.write(data)


def f64(*xs):
    return b"".join(struct.pack("<d", x) for x in xs)


def mdpd(ntypes, kT, rc, seed, lucy, coeffs, rhosum):
    """coeffs: (ilo, ihi, jlo, jhi, A, B, gamma, rc, rd); rhosum: (i, j, h); types 1-based."""
    b = bytes([ntypes - 1]) + f64(kT, rc) + bytes([seed & 0xFF, lucy])
    for ilo, ihi, jlo, jhi, *c in coeffs:
        b += bytes([0, ilo - 1, ihi - 1, jlo - 1, jhi - 1]) + f64(*c)
    for i, j, h in rhosum:
        b += bytes([1, i - 1, j - 1]) + f64(h)
    return b


def main():
    put("mdpd_coeff", "seed_example", mdpd(1, 1.0, 1.0, 98, 1, [(1, 1, 1, 1, -40, 25, 18.0, 1.0, 0.75)],
                                           [(1, 1, 0.75)]))
    put("mdpd_coeff", "seed_two_types", mdpd(2, 0.5, 1.2, 7, 0, [
        (1, 2, 1, 2, -40, 25, 18.0, 1.0, 0.75), (2, 2, 2, 2, -20, 10, 4.5, 1.2, 0.8)], [(1, 2, 0.0)]))
    put("deepmd_options", "seed_default", bytes([1]) + f64(0.01, 0.5))
    put("deepmd_options", "seed_exact", bytes([0]) + f64(0.01, 0.5))
    put("deepmd_options", "seed_fine", bytes([1]) + f64(0.002, 0.3))
    for name, words in (("cpu", b"cpu\0double\0"), ("auto", b"auto\0mixed\x001e9"),
                        ("cuda", b"cuda\0double\0"), ("bad", b"gpu\0single\0-1")):
        put("backend_words", "seed_" + name, words)


if __name__ == "__main__":
    main()
