"""A small many-body DPD liquid film used by several mdpd/pk tests: the LAMMPS droplet
example's setup (fcc lattice at density 6, A=-40, B=25, gamma=18, rc=1, rd=0.75, kT=1)
in a box small enough for quick tests (1152 beads)."""

FILM = """
plugin load {plugin}
units lj
atom_style atomic
comm_modify vel yes
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
region box block -6 6 -4 4 -4 4 units box
create_box 1 box
lattice fcc 6
region film block -4 4 -3 3 -2 2 units box
create_atoms 1 region film
mass 1 1.0
velocity all create 1.0 38497 loop geom dist gaussian
timestep 0.01
"""

# The same film read back from a data file: atom IDs from create_atoms depend on the rank
# count, so runs compared across decompositions must start from one written configuration.
FROM_DATA = """
plugin load {plugin}
units lj
atom_style atomic
comm_modify vel yes
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
read_data {data}
timestep 0.01
"""

# A run 0 from {dir}/state.restart, its energy and pressure to all digits: the settings and
# coefficients come from the file alone.
FROM_RESTART = """
plugin load {plugin}
read_restart {dir}/state.restart
comm_modify vel yes
thermo_style custom step pe press
thermo_modify format float %.16g
run 0
"""

# 200 NVE steps, then every atom's position and velocity in final.dump, to all digits.
NVE_200 = """
fix 1 all nve
thermo 50
thermo_style custom step temp pe press
thermo_modify format float %.16g
run 200
write_dump all custom final.dump id x y z vx vy vz modify format float %.17g
"""


def mdpd_pk(gamma=18.0, kernel="warren", seed=9872598):
    return (f"pair_style mdpd/pk 1.0 1.0 {seed} density {kernel}\n"
            f"pair_coeff 1 1 -40 25 {gamma} 1.0 0.75\n")
