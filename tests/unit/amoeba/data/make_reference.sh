#!/bin/bash
# Regenerates the LAMMPS reference numbers of the amoeba/pk unit tests (not run by the
# tests). Needs a LAMMPS 4Feb2025 binary with AMOEBA and CLASS2 and the LAMMPS source tree:
#   LMP=/path/to/lmp LAMMPS_SOURCE_DIR=/path/to/lammps-4Feb2025 ./make_reference.sh OUTDIR
# Writes OUTDIR/water_{dimer,hexamer,far,box}.txt in the format the tests read.
#
# Each run is "run 0" with pair_style amoeba restricted to one term ("include hal",
# "include mpole", "include mpole polar"; polarization alone is refused by LAMMPS), bond
# and angle styles switched to zero after read_data so that the dumped forces are the
# pair's. Polarization forces are those of "mpole polar" minus those of "mpole"; virials
# are the pair pressure times V / nktv2p. "far" is the water dimer with the second
# molecule moved 6.5 A along the O-O vector (HAL taper region, pairs beyond the hard
# multipole cutoff). The box uses amoeba_water_box.key without its Ewald/PME lines.
set -euo pipefail
: "${LMP:?set LMP}" "${LAMMPS_SOURCE_DIR:?set LAMMPS_SOURCE_DIR}"
out=$(realpath "${1:?output directory}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ex="$LAMMPS_SOURCE_DIR/examples/amoeba"
cp "$ex"/amoeba_water.prm "$ex"/amoeba_water.key "$ex"/data.water_dimer.amoeba \
   "$ex"/data.water_hexamer.amoeba "$ex"/data.water_box.amoeba .
cp "$here"/amoeba_water_box_noewald.key .
sed 's/^polar-eps/polarization direct\npolar-eps/' amoeba_water.key > direct.key
sed 's/^polar-eps/polarization direct\npolar-eps/' amoeba_water_box_noewald.key > box_direct.key

python3 - <<'EOF'
import math
lines = open('data.water_dimer.amoeba').read().split('\n')
o1 = (-0.024616, -0.001154, -0.003748); o2 = (-0.892721, 0.000120, 2.773674)
d = [b - a for a, b in zip(o1, o2)]; n = math.sqrt(sum(v * v for v in d))
u = [v / n * 6.5 for v in d]
for k, l in enumerate(lines):
    w = l.split()
    if len(w) == 7 and w[0] in '456' and w[3] == '0':
        lines[k] = ' '.join(w[:4] + ['%.6f' % (float(w[4 + c]) + u[c]) for c in range(3)])
    elif 'xlo xhi' in l: lines[k] = '-8 4 xlo xhi'
    elif 'ylo yhi' in l: lines[k] = '-2 2 ylo yhi'
    elif 'zlo zhi' in l: lines[k] = '-2 12 zlo zhi'
open('data.water_far.amoeba', 'w').write('\n'.join(lines))
EOF

run() {   # system data key boundary terms tag
    cat > in.$6 <<EOF
units           real
boundary        $4
atom_style      amoeba
bond_style      class2
angle_style     amoeba
dihedral_style  none
fix             amtype all property/atom i_amtype ghost yes
fix             extra all property/atom i_amgroup d_redID d_pval ghost yes
fix             extra2 all property/atom i_polaxe d2_xyzaxis 3
read_data       $2 fix amtype NULL "Tinker Types"
bond_style      zero
bond_coeff      *
angle_style     zero
angle_coeff     *
pair_style      amoeba include $5
pair_coeff      * * amoeba_water.prm $3
special_bonds   lj/coul 0.5 0.5 0.5 one/five yes
compute         pa all pair amoeba
compute         vp all pressure NULL pair
variable        v equal vol
thermo_style    custom step c_pa[1] c_pa[4] c_pa[5] v_v c_vp[*]
thermo_modify   format float %.15g
dump            1 all custom 1 dump.$6 id type x y z fx fy fz
dump_modify     1 sort id format float %.17g
run             0
EOF
    $LMP -in in.$6 -log log.$6 > /dev/null
}
for sys in dimer hexamer far box; do
    data=data.water_$sys.amoeba; key=amoeba_water.key; dkey=direct.key; bnd="s s s"
    if [ $sys = box ]; then key=amoeba_water_box_noewald.key; dkey=box_direct.key; bnd="p p p"; fi
    run $sys $data $key "$bnd" hal $sys.hal
    run $sys $data $key "$bnd" mpole $sys.mpole
    run $sys $data $key "$bnd" "mpole polar" $sys.polar
    run $sys $data $dkey "$bnd" "mpole polar" $sys.direct
done

python3 - "$out" <<'EOF'
import re, sys
out = sys.argv[1]
nktv2p = 68568.415
def thermo(tag):
    log = open('log.%s' % tag).read().split('\n')
    k = [i for i, l in enumerate(log) if l.split()[:1] == ['Step']][0]
    return log[k + 1].split()          # step ehal empole epolar vol p1..p6
def dump(tag):
    d = open('dump.%s' % tag).read().split('ITEM: ATOMS')[1].strip().split('\n')[1:]
    return {int(l.split()[0]): l.split() for l in d}
for sys_ in ('dimer', 'hexamer', 'far', 'box'):
    txt = open('data.water_%s.amoeba' % sys_).read()
    def sect(name):
        m = re.search(r'\n' + name + r'\s*\n\s*\n(.*?)(\n\s*\n|\Z)', txt, re.S)
        return [l.split() for l in m.group(1).strip().split('\n')]
    atoms = sect('Atoms'); bonds = sect('Bonds')
    types = {int(w[0]): int(w[1]) for w in sect('Tinker Types')}
    nmax = 96 if sys_ == 'box' else len(atoms)
    origin = {'dimer': 'data.water_dimer.amoeba', 'hexamer': 'data.water_hexamer.amoeba',
              'far': 'data.water_dimer.amoeba, second water moved 6.5 A along O-O',
              'box': 'data.water_box.amoeba (216 waters, periodic)'}[sys_]
    o = ['# water %s: atoms and bonds from LAMMPS 4Feb2025 examples/amoeba/%s (GPL-2.0).' % (sys_, origin),
         '# References from LAMMPS 4Feb2025 pair_style amoeba without Ewald (kcal/mol, A), made by',
         '# make_reference.sh: energies, forces%s, virials (box) per term.' % (' of atoms 1-96' if sys_ == 'box' else '')]
    if sys_ == 'box': o.append('box 18.643 18.643 18.643')
    o.append('atoms %d' % len(atoms))
    o += ['%s %d %s %s %s' % (w[0], types[int(w[0])], w[4], w[5], w[6]) for w in sorted(atoms, key=lambda w: int(w[0]))]
    o.append('bonds %d' % len(bonds)); o += ['%s %s' % (w[2], w[3]) for w in bonds]
    t = {k: thermo('%s.%s' % (sys_, k)) for k in ('hal', 'mpole', 'polar', 'direct')}
    f = {k: dump('%s.%s' % (sys_, k)) for k in ('hal', 'mpole', 'polar', 'direct')}
    vol = float(t['hal'][4])
    vir = lambda k: [float(v) * vol / nktv2p for v in t[k][5:11]]
    ids = sorted(f['hal'])[:nmax]
    for name, tag, col in (('hal', 'hal', 1), ('mpole', 'mpole', 2)):
        o.append('energy_%s %s' % (name, t[tag][col]))
        if sys_ == 'box': o.append('virial_%s %s' % (name, ' '.join('%.15g' % v for v in vir(tag))))
        o.append('forces_%s %d' % (name, len(ids)))
        o += ['%d %s %s %s' % (i, *f[tag][i][5:8]) for i in ids]
    o.append('energy_polar_mutual %s' % t['polar'][3])
    o.append('energy_polar_direct %s' % t['direct'][3])
    for name, tag in (('polar', 'polar'), ('polar_direct', 'direct')):
        if name == 'polar_direct' and sys_ in ('dimer', 'far'): continue
        o.append('forces_%s %d' % (name, len(ids)))
        o += ['%d %.17g %.17g %.17g' % (i, *[float(a) - float(b) for a, b in zip(f[tag][i][5:8], f['mpole'][i][5:8])]) for i in ids]
    if sys_ == 'box':
        for name, tag in (('polar_mutual', 'polar'), ('polar_direct', 'direct')):
            o.append('virial_%s %s' % (name, ' '.join('%.15g' % (a - b) for a, b in zip(vir(tag), vir('mpole')))))
    open('%s/water_%s.txt' % (out, sys_), 'w').write('\n'.join(o) + '\n')
EOF
echo "wrote $out/water_{dimer,hexamer,far,box}.txt"
