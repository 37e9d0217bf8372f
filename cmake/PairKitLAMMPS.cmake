# Locate the LAMMPS that the plugin is built against.
#   LAMMPS_SOURCE_DIR  LAMMPS source tree (or its src/): plugins compile against the source
#                      headers of the same version (the install lacks lammpsplugin.h etc.)
#   LAMMPS_ROOT        LAMMPS install prefix; bin/lmp runs the integration tests
# tools/bootstrap-lammps.sh builds both, cached outside the checkout.
set(LAMMPS_SOURCE_DIR "" CACHE PATH "LAMMPS source tree matching the LAMMPS that loads the plugin")
set(LAMMPS_ROOT "" CACHE PATH "LAMMPS install prefix (bin/lmp is used by the tests)")

if(EXISTS "${LAMMPS_SOURCE_DIR}/src/lammps.h")
  set(LAMMPS_HEADER_DIR "${LAMMPS_SOURCE_DIR}/src")
elseif(EXISTS "${LAMMPS_SOURCE_DIR}/lammps.h")
  set(LAMMPS_HEADER_DIR "${LAMMPS_SOURCE_DIR}")
else()
  message(FATAL_ERROR "PairKit: set LAMMPS_SOURCE_DIR to a LAMMPS source tree (got '${LAMMPS_SOURCE_DIR}'),"
                      " run tools/bootstrap-lammps.sh, or configure with -DPAIRKIT_LAMMPS=OFF")
endif()

# LAMMPS_VERSION "4 Feb 2025" -> 20250204, the number lammps_version() returns.
file(STRINGS "${LAMMPS_HEADER_DIR}/version.h" _pk_ver REGEX "^#define LAMMPS_VERSION ")
string(REGEX REPLACE "^#define LAMMPS_VERSION \"([^\"]+)\".*" "\\1" PAIRKIT_LAMMPS_VERSION "${_pk_ver}")
string(REGEX MATCH "^([0-9]+) ([A-Za-z]+) ([0-9]+)$" _pk_ok "${PAIRKIT_LAMMPS_VERSION}")
if(NOT _pk_ok)
  message(FATAL_ERROR "PairKit: cannot parse LAMMPS version '${PAIRKIT_LAMMPS_VERSION}'")
endif()
set(_pk_months Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec)
list(FIND _pk_months "${CMAKE_MATCH_2}" _pk_month)
math(EXPR PAIRKIT_LAMMPS_VERSION_NUM "${CMAKE_MATCH_3} * 10000 + (${_pk_month} + 1) * 100 + ${CMAKE_MATCH_1}")
message(STATUS "PairKit: LAMMPS headers ${LAMMPS_HEADER_DIR} (version ${PAIRKIT_LAMMPS_VERSION})")

add_library(pk_lammps_headers INTERFACE)
target_include_directories(pk_lammps_headers INTERFACE "${LAMMPS_HEADER_DIR}")
if(PAIRKIT_MPI)
  set(MPI_CXX_SKIP_MPICXX TRUE)
  find_package(MPI REQUIRED COMPONENTS CXX)
  target_link_libraries(pk_lammps_headers INTERFACE MPI::MPI_CXX)
else()
  target_include_directories(pk_lammps_headers INTERFACE "${LAMMPS_HEADER_DIR}/STUBS")
endif()

if(LAMMPS_ROOT)
  find_program(LAMMPS_BINARY lmp PATHS "${LAMMPS_ROOT}/bin" NO_DEFAULT_PATH)
endif()
if(NOT LAMMPS_BINARY)
  find_program(LAMMPS_BINARY lmp)
endif()
if(NOT LAMMPS_BINARY)
  message(WARNING "PairKit: no lmp binary found (set LAMMPS_ROOT); LAMMPS integration tests are not registered")
endif()
