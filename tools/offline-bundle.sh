#!/usr/bin/env bash
# Pack what a GPU node without internet needs to build LAMMPS (GPU package) and PairKit.
#
#   tools/offline-bundle.sh [DEST]          # DEST defaults to offline/ in the checkout
#
# Run on a connected Debian machine. DEST then holds:
#   lammps-4Feb2025-trimmed.tar.xz   LAMMPS 4Feb2025 source cut down to the packages PairKit
#                                    builds and tests against (+ GPU), the mdpd, amoeba and
#                                    hdnnp examples; configures, builds and installs as is
#                                    (~4 MB)
#   debs/*.deb                       Debian's libyaml-dev, libyaml-0-2, librandom123-dev, for
#                                    `dpkg -x` into a private prefix on the node
#   shared/reference/                ../shared/reference (test reference data), when present
#   MANIFEST.txt                     what is in the bundle: versions, sizes, sha256, origin
#   SHA256SUMS                       the same hashes in `sha256sum -c` form
# tools/gpu-node.sh consumes it on the node (DEST is carried there as an ignored path).
#
# The LAMMPS source comes from the cache of tools/bootstrap-lammps.sh (~/.cache/pairkit, or
# $PAIRKIT_CACHE); when it is missing, the bootstrap's own fetch step is run first.
set -euo pipefail

case "${1:-}" in
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: tools/offline-bundle.sh [DEST]" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:-$root/offline}
bootstrap=$root/tools/bootstrap-lammps.sh

# ---- the LAMMPS source: reuse bootstrap-lammps.sh's settings and its fetch_source -----------
# Evaluate the bootstrap script up to (not including) its main part, which starts at the line
# "install_debian_packages": that defines LAMMPS_DEB_VERSION, LAMMPS_DIRNAME, CACHE, SRC and
# the functions fetch_source/add_trixie_sources without building anything.
if ! grep -qx 'install_debian_packages' "$bootstrap"; then
    echo "[offline-bundle] error: $bootstrap changed shape (no line 'install_debian_packages')" >&2
    exit 1
fi
eval "$(sed '/^install_debian_packages$/,$d' "$bootstrap")"
# (defined after the eval: the bootstrap has its own log())
log() { echo "[offline-bundle] $*" >&2; }
die() { log "error: $*"; exit 1; }
: "${SRC:?}" "${LAMMPS_DEB_VERSION:?}" "${LAMMPS_DIRNAME:?}"
if [ ! -f "$SRC/cmake/CMakeLists.txt" ]; then
    log "LAMMPS source not in $SRC: fetching it with bootstrap-lammps.sh's fetch step"
    fetch_source
fi
[ -f "$SRC/src/version.h" ] || die "no LAMMPS source tree in $SRC"
lammps_version=$(sed -n 's/^#define LAMMPS_VERSION "\(.*\)"/\1/p' "$SRC/src/version.h")
[ "$lammps_version" = "4 Feb 2025" ] || log "warning: LAMMPS source is '$lammps_version', expected '4 Feb 2025'"

# Packages whose src/<PKG> folders go in: what bootstrap-lammps.sh builds, plus GPU.
PACKAGES="PLUGIN GPU AMOEBA DPD-MESO DPD-BASIC MOLECULE CLASS2 KSPACE EXTRA-MOLECULE OPENMP EXTRA-PAIR MANYBODY"
for p in $PACKAGES; do [ -d "$SRC/src/$p" ] || die "package folder $SRC/src/$p missing"; done

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/pk-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/$LAMMPS_DIRNAME
mkdir -p "$top/src" "$top/lib" "$top/doc" "$top/examples/PACKAGES/dpd-meso"

log "trimming $SRC"
cp -a "$SRC/cmake" "$top/"                       # CMakeLists.txt, Modules/, presets/, etc/
cp -a "$SRC/LICENSE" "$SRC/README" "$top/"
cp -a "$SRC"/src/*.cpp "$SRC"/src/*.h "$top/src/"
cp -a "$SRC/src/fmt" "$SRC/src/STUBS" "$top/src/"    # without src/fmt the build fails
for p in $PACKAGES; do cp -a "$SRC/src/$p" "$top/src/"; done
cp -a "$SRC/lib/gpu" "$top/lib/"
cp -a "$SRC/examples/amoeba" "$top/examples/"
cp -a "$SRC/examples/PACKAGES/dpd-meso/mdpd" "$top/examples/PACKAGES/dpd-meso/"
cp -a "$SRC/examples/PACKAGES/hdnnp" "$top/examples/PACKAGES/"   # lammps.hdnnp_cuda's example
# `cmake --install` wants the man page and copies bench/ and potentials/ into share/lammps;
# empty folders keep it working without their 93 MB.
cp -a "$SRC/doc/lammps.1" "$top/doc/"
mkdir -p "$top/bench" "$top/potentials"
cat >"$top/PAIRKIT-TRIMMED.txt" <<EOF
LAMMPS $lammps_version (Debian source package lammps $LAMMPS_DEB_VERSION), trimmed by
PairKit's tools/offline-bundle.sh for building on machines without internet access.
Kept: cmake/, src/*.cpp src/*.h, src/fmt, src/STUBS, the packages
$PACKAGES,
lib/gpu, doc/lammps.1, examples/amoeba, examples/PACKAGES/dpd-meso/mdpd,
examples/PACKAGES/hdnnp.
bench/ and potentials/ are left empty; unittest/, tools/, python/ are not included
(configure with ENABLE_TESTING off, the default, and BUILD_TOOLS off).
LAMMPS is GPL-2.0 (LICENSE).
EOF

tarball=$LAMMPS_DIRNAME-trimmed.tar.xz
log "packing $tarball"
# Reproducible archive: fixed order, owner and time, so the same source gives the same sha256.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime='2025-02-04 00:00Z' \
    -cf - "$LAMMPS_DIRNAME" | xz -T1 -6 >"$dest/$tarball.tmp"
mv "$dest/$tarball.tmp" "$dest/$tarball"

# ---- Debian packages for the node ---------------------------------------------------------
DEBS=(libyaml-dev libyaml-0-2 librandom123-dev)
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || log "warning: this machine is $arch; the GPU node is amd64 (x86-64)"
mkdir -p "$dest/debs"
rm -f "$dest"/debs/*.deb
log "downloading ${DEBS[*]}"
if ! (cd "$dest/debs" && apt-get download "${DEBS[@]}" >/dev/null 2>&1); then
    log "apt-get download failed; refreshing the package lists once"
    if [ "$(id -u)" = 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
    (cd "$dest/debs" && apt-get download "${DEBS[@]}" >/dev/null) || die "apt-get download ${DEBS[*]} failed"
fi

# ---- reference data for the tests (../shared/reference), small, when present ---------------
shared_ref=$root/../shared/reference
rm -rf "$dest/shared"
if [ -d "$shared_ref" ]; then
    mkdir -p "$dest/shared"
    cp -a "$shared_ref" "$dest/shared/"
    log "copied $(du -sh "$shared_ref" | cut -f1) of test reference data from $shared_ref"
else
    log "no $shared_ref: tests that need it will fail on the node"
fi

# ---- manifest ---------------------------------------------------------------------------
(
    cd "$dest"
    find . -type f ! -name SHA256SUMS ! -name MANIFEST.txt ! -name '*.tmp' -printf '%P\n' \
        | LC_ALL=C sort | xargs -d '\n' sha256sum >SHA256SUMS.tmp
    mv SHA256SUMS.tmp SHA256SUMS
)
{
    echo "# PairKit offline bundle"
    echo
    echo "made:     $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname) ($(sed -n 's/^PRETTY_NAME="*\([^"]*\)"*$/\1/p' /etc/os-release), $arch)"
    echo "pairkit:  $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "lammps:   $lammps_version from Debian source package lammps=$LAMMPS_DEB_VERSION"
    echo "          (unpacked from $SRC), trimmed: see $LAMMPS_DIRNAME/PAIRKIT-TRIMMED.txt"
    echo "packages: $PACKAGES"
    echo
    echo "## Debian packages (dpkg -x on the node; Architecture, Version)"
    for f in "$dest"/debs/*.deb; do
        printf '%-22s %-8s %-14s %s\n' "$(dpkg-deb -f "$f" Package)" "$(dpkg-deb -f "$f" Architecture)" \
            "$(dpkg-deb -f "$f" Version)" "debs/$(basename "$f")"
    done
    echo
    echo "## Files (bytes, sha256)"
    while read -r sum file; do
        printf '%10s  %s  %s\n' "$(stat -c %s "$dest/$file")" "$sum" "$file"
    done <"$dest/SHA256SUMS"
} >"$dest/MANIFEST.txt"

log "bundle in $dest ($(du -sh "$dest" | cut -f1)); check with: (cd $dest && sha256sum -c SHA256SUMS)"
cat "$dest/MANIFEST.txt"
