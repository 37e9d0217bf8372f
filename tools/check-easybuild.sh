#!/usr/bin/env bash
# Check packaging/easybuild/ with a real EasyBuild, offline but for PyPI:
#  1. `eb --dry-run --robot` of PairKit-<version>-foss-2023a.eb resolves the whole dependency
#     chain (foss/2023a from EasyBuild's own easyconfigs, LAMMPS 4Feb2025 and cJSON from ours).
#  2. A real `eb` install into a temporary prefix of a local variant of that easyconfig: the
#     same easyblock, start_dir, configopts, sanity checks and modextrapaths, but the SYSTEM
#     toolchain, Debian's libraries, and as only source a tarball of this checkout (its
#     tracked and untracked-but-not-ignored files), since foss/2023a, LAMMPS and Random123
#     cannot be built or downloaded here; the LAMMPS source tree is the one that
#     tools/bootstrap-lammps.sh caches.
#  3. The module EasyBuild generated, loaded with Lmod in a fresh shell, prepends the plugin
#     directory to LAMMPS_PLUGIN_PATH (never setenv), and an unchanged LAMMPS example
#     (examples/PACKAGES/hdnnp/in.hdnnp: 1080 water atoms, 10 steps) run with `-sf pk`
#     autoloads the plugin and runs on hdnnp/pk with the example log's step-0 E_pair.
#
# usage: tools/check-easybuild.sh [work-dir]     (default: a new temporary directory)
# environment: PAIRKIT_CACHE (as tools/bootstrap-lammps.sh), EB_VENV (default
#   $PAIRKIT_CACHE/easybuild-venv: EasyBuild is pip-installed there once).
# Needs Lmod (Debian: lmod, installed here if missing as root) and the LAMMPS build of
# tools/bootstrap-lammps.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${PAIRKIT_CACHE:-$HOME/.cache/pairkit}
venv=${EB_VENV:-$cache/easybuild-venv}
work=${1:-$(mktemp -d /tmp/pk-easybuild.XXXXXX)}
EB_VERSION=5.4.1
log() { echo "[check-easybuild] $*" >&2; }
fail() { echo "[check-easybuild] FAILED: $*" >&2; exit 1; }

for p in lmod python3-venv; do
    dpkg -s "$p" >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null; }
done
if [ ! -x "$venv/bin/eb" ] || ! "$venv/bin/python3" -m pip show easybuild 2>/dev/null | grep -qx "Version: $EB_VERSION"; then
    log "installing EasyBuild $EB_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "easybuild==$EB_VERSION"
fi
eval "$("$root/tools/bootstrap-lammps.sh" | grep -E '^LAMMPS_(SOURCE_DIR|ROOT)=')"

version=$(sed -n 's/^project(PairKit VERSION \([0-9.]*\) .*/\1/p' "$root/CMakeLists.txt")
site_ec=$root/packaging/easybuild/PairKit-$version-foss-2023a.eb
[ -f "$site_ec" ] || fail "no $site_ec for project version $version"
mkdir -p "$work/sources" "$work/ec"
export EB_PYTHON=$venv/bin/python3
# shellcheck disable=SC1091
source /usr/share/lmod/lmod/init/bash
eb() { "$venv/bin/eb" --allow-use-as-root-and-accept-consequences --modules-tool=Lmod \
        --installpath="$work/install" --buildpath="$work/build" --sourcepath="$work/sources" \
        --tmpdir="$work/tmp" "$@"; }

log "1. dry run with the dependency robot"
eb --dry-run --robot="$root/packaging/easybuild:" "$site_ec" >"$work/dry-run.log" 2>&1 \
    || { cat "$work/dry-run.log"; fail "eb --dry-run"; }
for m in foss/2023a LAMMPS/4Feb2025-foss-2023a-kokkos cJSON/1.7.18-GCCcore-12.3.0 \
         HDF5/1.14.0-gompi-2023a libyaml/0.2.5-GCCcore-12.3.0 "PairKit/$version-foss-2023a"; do
    grep -q "(module: $m)" "$work/dry-run.log" || fail "dry run does not resolve $m"
done

log "2. real install of the local variant into $work/install"
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
    | tar --null -T - --transform "s,^,PairKit-$version/," -czf "$work/sources/PairKit-$version.tar.gz")
local_ec=$work/ec/PairKit-$version.eb
python3 - "$site_ec" "$local_ec" "$LAMMPS_SOURCE_DIR" <<'EOF'
import re, sys
site, out, lammps_src = sys.argv[1:]
text = open(site).read()

def sub(pattern, repl):
    """Replace one top-level assignment; the check fails if the easyconfig lost it."""
    global text
    text, n = re.subn(pattern, lambda m: repl, text, count=1, flags=re.M | re.S)
    if n != 1:
        sys.exit(f"check-easybuild: {site} has no match for {pattern!r}")

sub(r"^toolchain = \{.*?\}\n", "toolchain = SYSTEM\n")
sub(r"^toolchainopts = \{.*?\}\n", "")
sub(r"^sources = \[.*?^\]\n", "sources = ['PairKit-%(version)s.tar.gz']\n")
sub(r"^checksums = \[.*?^\]\n", "checksums = [None]\n")
sub(r"^builddependencies = \[.*?^\]\n", "builddependencies = []\n")
sub(r"^dependencies = \[.*?^\]\n", "dependencies = []\n")
sub(r"'-DLAMMPS_SOURCE_DIR=[^']*',\n", f"'-DLAMMPS_SOURCE_DIR={lammps_src}',\n")
sub(r"\s*'-DRANDOM123_INCLUDE_DIR=[^']*',\n", "\n")
open(out, "w").write(text)
EOF
eb "$local_ec" --parallel=2 >"$work/install.log" 2>&1 || { tail -40 "$work/install.log"; fail "eb install"; }
modfile=$work/install/modules/all/PairKit/$version.lua
[ -f "$modfile" ] || fail "no module file $modfile"
grep -q '^prepend_path("LAMMPS_PLUGIN_PATH", pathJoin(root, ' "$modfile" \
    || { cat "$modfile"; fail "module does not prepend to LAMMPS_PLUGIN_PATH"; }
! grep -q 'setenv("LAMMPS_PLUGIN_PATH"' "$modfile" || fail "module sets LAMMPS_PLUGIN_PATH"

log "3. the generated module autoloads the plugin into an unchanged example"
example=$LAMMPS_SOURCE_DIR/examples/PACKAGES/hdnnp
plugins=$work/install/software/PairKit/$version/lib/lammps/plugins
mkdir -p "$work/run"
ln -sf "$example/data.H2O-360mol" "$example/hdnnp-data" "$work/run/"
out=$(cd "$work/run" && env -u LAMMPS_PLUGIN_PATH -u MODULEPATH -u LOADEDMODULES -u _LMFILES_ \
    OMP_NUM_THREADS=1 bash -c "set -e; source /usr/share/lmod/lmod/init/bash
        module use $work/install/modules/all; module load PairKit/$version
        echo LAMMPS_PLUGIN_PATH=\$LAMMPS_PLUGIN_PATH
        $LAMMPS_ROOT/bin/lmp -nocite -log none -sf pk -in $example/in.hdnnp" 2>&1) \
    || { echo "$out" | tail -30; fail "lmp under the EasyBuild module"; }
echo "$out" | grep -qx "LAMMPS_PLUGIN_PATH=$plugins" || { echo "$out" | head; fail "LAMMPS_PLUGIN_PATH is not $plugins"; }
echo "$out" | grep -qF "Loaded 1 plugins from $plugins" || { echo "$out"; fail "plugin not autoloaded"; }
echo "$out" | grep -q "^pair_style hdnnp/pk: model hdnnp-data" || { echo "$out"; fail "hdnnp/pk did not run"; }
# step 0 E_pair of examples/PACKAGES/hdnnp/log.23Aug23.hdnnp.g++.1, to the digits it prints
epair=$(echo "$out" | awk '$1=="Step"{for(i=1;i<=NF;i++) if($i=="E_pair") c=i; getline; print $c; exit}')
python3 -c "import sys; e=float('$epair'); sys.exit(abs(e - -750069.48) > 0.01)" \
    || { echo "$out"; fail "step 0 E_pair $epair, example log -750069.48"; }
log "passed: dry run resolves the chain; installed and ran hdnnp/pk from the EasyBuild module (E_pair $epair)"
