"""Shared pieces of the deepmd/pk LAMMPS tests that use the synthetic water model: its path
(generated at build time, PK_DEEPMD_WATER_MODEL) and water boxes from tools/water_box.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import water_box  # noqa: E402

WATER_MODEL = os.environ["PK_DEEPMD_WATER_MODEL"]


def water_data(n):
    """LAMMPS data file text of n^3 water molecules at 1 g/cm^3 (types 1 = O, 2 = H)."""
    return water_box.data_text(n)
