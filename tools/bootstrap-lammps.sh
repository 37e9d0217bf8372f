#!/usr/bin/env bash
# Obtain and build the LAMMPS that PairKit tests against, once, in a cache outside the checkout.
#
#   tools/bootstrap-lammps.sh            # prints the install prefix on its last line
#
# LAMMPS 4Feb2025 comes from Debian's source packages (suite trixie); bookworm's own lammps
# package has no PLUGIN support and must not be installed. The build is cached under
# $PAIRKIT_CACHE (default ~/.cache/pairkit) and reused when its stamp matches.
set -euo pipefail

LAMMPS_DEB_VERSION=20250204+dfsg.1-2
LAMMPS_TARBALL=lammps_20250204+dfsg.1.orig.tar.xz
LAMMPS_DIRNAME=lammps-4Feb2025
CACHE=${PAIRKIT_CACHE:-$HOME/.cache/pairkit}
JOBS=${PAIRKIT_JOBS:-$(nproc)}
# The package set is chosen once: changing it rebuilds everything.
PACKAGES="PLUGIN MOLECULE EXTRA-MOLECULE CLASS2 KSPACE AMOEBA DPD-BASIC DPD-MESO EXTRA-PAIR MANYBODY OPENMP"
STAMP_TEXT="$LAMMPS_DEB_VERSION $PACKAGES mpi omp shared"

SRC=$CACHE/$LAMMPS_DIRNAME
BUILD=$CACHE/lammps-build
PREFIX=$CACHE/lammps-install
STAMP=$PREFIX/.pairkit-stamp

log() { echo "[bootstrap-lammps] $*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_debian_packages() {
    local want="g++ make cmake pkg-config xz-utils libopenmpi-dev openmpi-bin librandom123-dev
                libyaml-dev libhdf5-dev libcjson-dev python3"
    local missing=()
    # "pkg" alone is ambiguous to dpkg once pkg:arm64 is also installed (tools/check-aarch64.sh)
    local arch
    arch=$(dpkg --print-architecture)
    for p in $want; do
        dpkg -s "$p" >/dev/null 2>&1 || dpkg -s "$p:$arch" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Add a deb-src entry for trixie whose URI is taken from the system's own sources file.
add_trixie_sources() {
    local list=/etc/apt/sources.list.d/pairkit-trixie-src.sources
    [ -f "$list" ] && return 0
    local uri
    uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
    [ -n "$uri" ] || { log "cannot find a Debian mirror in the apt sources"; exit 1; }
    log "adding deb-src trixie from $uri"
    printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$uri" | as_root tee "$list" >/dev/null
    as_root apt-get update -qq
}

fetch_source() {
    [ -f "$SRC/cmake/CMakeLists.txt" ] && return 0
    mkdir -p "$CACHE"
    if [ ! -f "$CACHE/$LAMMPS_TARBALL" ]; then
        add_trixie_sources
        log "downloading LAMMPS source package $LAMMPS_DEB_VERSION"
        (cd "$CACHE" && apt-get source --download-only --tar-only "lammps=$LAMMPS_DEB_VERSION" >/dev/null)
    fi
    log "unpacking $LAMMPS_TARBALL"
    tar -C "$CACHE" -xJf "$CACHE/$LAMMPS_TARBALL"
}

build_lammps() {
    local pkg_flags=()
    for p in $PACKAGES; do pkg_flags+=("-DPKG_$p=on"); done
    log "configuring LAMMPS in $BUILD"
    cmake -S "$SRC/cmake" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_RPATH="$PREFIX/lib" \
        -DBUILD_SHARED_LIBS=on -DBUILD_MPI=on -DBUILD_OMP=on -DLAMMPS_EXCEPTIONS=on \
        -DWITH_JPEG=off -DWITH_PNG=off -DWITH_FFMPEG=off -DWITH_GZIP=on \
        "${pkg_flags[@]}" >"$CACHE/lammps-configure.log"
    log "building LAMMPS with $JOBS jobs (log: $CACHE/lammps-build.log)"
    cmake --build "$BUILD" -j "$JOBS" >"$CACHE/lammps-build.log" 2>&1 \
        || { tail -40 "$CACHE/lammps-build.log" >&2; exit 1; }
    cmake --install "$BUILD" >/dev/null
    echo "$STAMP_TEXT" >"$STAMP"
}

install_debian_packages
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ] && [ -x "$PREFIX/bin/lmp" ]; then
    log "cached LAMMPS found in $PREFIX"
else
    fetch_source
    build_lammps
fi
echo "LAMMPS_SOURCE_DIR=$SRC"
echo "LAMMPS_ROOT=$PREFIX"
