#!/usr/bin/env bash
# Build the peer of hdnnp/pk: n2p2's libnnpif and a LAMMPS 4Feb2025 with ML-HDNNP (pair_style
# hdnnp) and PLUGIN, so that LAMMPS hdnnp and hdnnp/pk (the PairKit plugin) run in the same
# binary. Everything lives in the cache, outside the checkout; finished steps are skipped.
#
#   tools/build-n2p2-peer.sh [N2P2_SOURCE_TREE]    # prints the lmp path on its last line
#
# N2P2_SOURCE_TREE: an unpacked n2p2 source release (default $CACHE/n2p2/n2p2-2.2.0, the
# version LAMMPS 4Feb2025 downloads itself; only the default is fetched from GitHub, MD5-checked,
# when absent). Needs the LAMMPS source that tools/bootstrap-lammps.sh unpacks; installs
# libeigen3-dev when missing.
set -euo pipefail

CACHE=${PAIRKIT_CACHE:-$HOME/.cache/pairkit}
JOBS=${PAIRKIT_JOBS:-2}
N2P2_VERSION=2.2.0
N2P2_MD5=a2d9ab7f676b3a74a324fc1eda0a911d    # the checksum LAMMPS's ML-HDNNP.cmake uses
N2P2_SRC=$(realpath -m "${1:-$CACHE/n2p2/n2p2-$N2P2_VERSION}")
LAMMPS_SRC=$CACHE/lammps-4Feb2025
BUILD=$CACHE/lammps-hdnnp-build
LMP=$BUILD/lmp
# MPI's C++ bindings must stay out of n2p2's objects, or linking LAMMPS against Open MPI
# fails; -fPIC because the static libraries end up in the shared liblammps. -O3 -DNDEBUG are
# the flags LAMMPS's own download build gives n2p2, -march=native what PairKit uses.
N2P2_CFLAGS="-O3 -DNDEBUG -march=native -std=c++11 -fPIC -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX"

log() { echo "[build-n2p2-peer] $*" >&2; }

[ -f "$LAMMPS_SRC/cmake/CMakeLists.txt" ] \
    || { log "no LAMMPS source in $LAMMPS_SRC: run tools/bootstrap-lammps.sh first"; exit 1; }

if ! dpkg -s libeigen3-dev >/dev/null 2>&1; then
    log "installing libeigen3-dev"
    if [ "$(id -u)" = 0 ]; then as_root=(); else as_root=(sudo); fi
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends libeigen3-dev >/dev/null
fi

if [ ! -f "$N2P2_SRC/src/makefile" ]; then
    [ $# -eq 0 ] || { log "$N2P2_SRC is not an n2p2 source tree (no src/makefile)"; exit 1; }
    tarball=$CACHE/n2p2/v$N2P2_VERSION.tar.gz
    mkdir -p "$CACHE/n2p2"
    log "downloading n2p2 v$N2P2_VERSION"
    curl -fsSL -o "$tarball" "https://github.com/CompPhysVienna/n2p2/archive/v$N2P2_VERSION.tar.gz"
    echo "$N2P2_MD5  $tarball" | md5sum -c --quiet
    tar -C "$(dirname "$N2P2_SRC")" -xzf "$tarball"
fi

if [ -f "$N2P2_SRC/lib/libnnpif.a" ] && [ -f "$N2P2_SRC/lib/lammps-extra.cmake" ]; then
    log "n2p2 libraries found in $N2P2_SRC/lib"
else
    log "building n2p2 libnnp + libnnpif in $N2P2_SRC (log: $CACHE/n2p2/make.log)"
    # The APP* names are given (as LAMMPS's own download build does) because n2p2's makefile
    # otherwise asks a sub-make for them, whose "Entering directory" lines break the rules.
    (cd "$N2P2_SRC/src" && make -j "$JOBS" libnnpif COMP=gnu INTERFACES=LAMMPS PROJECT_DEBUG= \
        PROJECT_CC=g++ PROJECT_MPICC=mpic++ "PROJECT_CFLAGS=$N2P2_CFLAGS" \
        APP_LIBNNP=nnp-convert APP_LIBNNPTRAIN=nnp-train APP=nnp-convert) \
        >"$CACHE/n2p2/make.log" 2>&1 || { tail -30 "$CACHE/n2p2/make.log" >&2; exit 1; }
fi

if [ -x "$LMP" ] && grep -qx "N2P2_DIR:[A-Z]*=$N2P2_SRC" "$BUILD/CMakeCache.txt"; then
    log "LAMMPS with ML-HDNNP found in $BUILD"
else
    # The options of tools/bootstrap-lammps.sh (MPI, OpenMP, shared, exceptions) so that the
    # PairKit plugin built against the cached install loads here; only PLUGIN and ML-HDNNP.
    # The -U drop what FindN2P2 found in an earlier n2p2 tree.
    log "configuring LAMMPS in $BUILD"
    cmake -S "$LAMMPS_SRC/cmake" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=on -DBUILD_MPI=on -DBUILD_OMP=on -DLAMMPS_EXCEPTIONS=on \
        -DWITH_JPEG=off -DWITH_PNG=off -DWITH_FFMPEG=off -DWITH_GZIP=on \
        -UN2P2_INCLUDE_DIR -UN2P2_LIBNNP -UN2P2_LIBNNPIF -UN2P2_CMAKE_EXTRA \
        -DPKG_PLUGIN=on -DPKG_ML-HDNNP=on -DDOWNLOAD_N2P2=no -DN2P2_DIR="$N2P2_SRC" \
        >"$BUILD.configure.log" 2>&1 || { tail -30 "$BUILD.configure.log" >&2; exit 1; }
    log "building LAMMPS with $JOBS jobs (log: $BUILD.log)"
    cmake --build "$BUILD" -j "$JOBS" >"$BUILD.log" 2>&1 || { tail -40 "$BUILD.log" >&2; exit 1; }
fi
grep -q -w hdnnp <<<"$("$LMP" -h)" || { log "$LMP has no pair_style hdnnp"; exit 1; }
echo "N2P2_DIR=$N2P2_SRC"
echo "HDNNP_LMP=$LMP"
