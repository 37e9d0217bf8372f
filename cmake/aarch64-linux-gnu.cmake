# Cross-compiling for 64-bit Arm Linux with Debian's cross toolchain
# (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user; for the tests also
# dpkg --add-architecture arm64 and libyaml-dev:arm64 libgomp1:arm64):
#   cmake -S . -B build-a64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DPAIRKIT_NATIVE=OFF
# Target libraries come from the cross toolchain's root (/usr/aarch64-linux-gnu) and from
# Debian multiarch packages (e.g. libyaml-dev:arm64 in /usr/lib/aarch64-linux-gnu); headers
# are also taken from /usr/include, which the cross compiler itself searches (header-only
# packages such as librandom123-dev need no arm64 copy). tools/check-aarch64.sh uses this
# file to build and test the C cores under qemu.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Libraries, headers and packages from the target's roots only: "/" adds the multiarch
# directories <prefix>/lib/aarch64-linux-gnu (CMAKE_LIBRARY_ARCHITECTURE: the host's
# <prefix>/lib/x86_64-linux-gnu is not searched) and /usr/include. Programs (python3, qemu,
# pkg-config) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config: the arm64 .pc files, not the host's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# ctest runs the test executables through qemu user-mode emulation. Their loader and
# libraries are the multiarch ones (libc6:arm64, libgomp1:arm64, libyaml-0-2:arm64):
# threaded programs linked dynamically hang in pthread_create under Debian 12's qemu 7.2
# with the cross toolchain's own libc (qemu -L /usr/aarch64-linux-gnu), not with these.
find_program(PAIRKIT_QEMU_AARCH64 qemu-aarch64)
if(PAIRKIT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PAIRKIT_QEMU_AARCH64})
endif()
