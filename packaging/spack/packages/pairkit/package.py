# Spack package for PairKit (packaging/spack in the PairKit repository).
# SPDX-License-Identifier: GPL-2.0-only

from spack.package import *

try:  # Spack >= 1.0 keeps the build systems in its builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:  # Spack 0.x: they come with spack.package above
    pass

# The plugin compiles against the *source* headers of the LAMMPS that loads it (an installed
# LAMMPS has only some 38 headers, without lammpsplugin.h or version.h), so the LAMMPS release
# tarball of that version is a resource, unpacked beside the sources and only read by the
# compiler. Its URL and checksum are those of Spack's lammps@20250204.
LAMMPS_VERSION = "20250204"
LAMMPS_TARBALL = "https://github.com/lammps/lammps/archive/patch_4Feb2025.tar.gz"
LAMMPS_SHA256 = "a4cb0a58451d47ac31ee3e1f148d92f445298d6e27f2d06f161b9b4168d79eb1"


class Pairkit(CMakePackage, CudaPackage):
    """PairKit: the LAMMPS pair styles deepmd/pk (DeePMD-kit se_e2_a models), hdnnp/pk (n2p2
    neural network potentials), amoeba/pk (AMOEBA non-bonded terms) and mdpd/pk (many-body
    DPD) in one LAMMPS plugin, loaded at start-up from LAMMPS_PLUGIN_PATH. Inputs written for
    the LAMMPS styles run on PairKit's with `lmp -sf pk`. Needs LAMMPS 4Feb2025 exactly."""

    # PairKit has no public download site yet: a site points `git` at its copy of the
    # repository (or adds a `url` and sha256 for a release tarball made with git archive).
    homepage = "https://example.org/pairkit"
    git = "https://example.org/pairkit.git"

    license("GPL-2.0-only")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("openmp", default=True, description="Thread the portable C kernels with OpenMP")
    variant("mpi", default=True, description="Build against MPI (must match the LAMMPS build)")
    variant("sve", default=False, description="Build the A64FX/Arm SVE backends")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    # LAMMPS loads the plugin at run time; the plugin refuses any other LAMMPS version.
    depends_on(f"lammps+plugin@{LAMMPS_VERSION}", type="run")
    depends_on("lammps+mpi", when="+mpi", type="run")
    depends_on("lammps~mpi", when="~mpi", type="run")
    depends_on("mpi", when="+mpi")
    depends_on("libyaml")  # DeePMD-kit .yaml models
    depends_on("cjson")  # DeePMD-kit .dp models: HDF5 holding a JSON model dict
    depends_on("hdf5~mpi", when="~mpi")
    depends_on("hdf5", when="+mpi")  # serial use of the C API; MPI-enabled HDF5 also does
    depends_on("random123")  # counter-based RNG of mdpd/pk's pairwise noise (headers only)

    resource(
        name="lammps-source", url=LAMMPS_TARBALL, sha256=LAMMPS_SHA256, placement="lammps-source"
    )

    conflicts("+sve", when="target=x86_64:", msg="the SVE backends need an Arm (aarch64) target")

    # lib/lammps/plugins: the directory that lammps+plugin also puts on LAMMPS_PLUGIN_PATH
    sanity_check_is_file = [join_path("lib", "lammps", "plugins", "pairkitplugin.so")]

    def cmake_args(self):
        args = [
            self.define("LAMMPS_SOURCE_DIR", join_path(self.stage.source_path, "lammps-source")),
            self.define("RANDOM123_INCLUDE_DIR", self.spec["random123"].prefix.include),
            self.define_from_variant("PAIRKIT_CUDA", "cuda"),
            self.define_from_variant("PAIRKIT_SVE", "sve"),
            self.define_from_variant("PAIRKIT_OPENMP", "openmp"),
            self.define_from_variant("PAIRKIT_MPI", "mpi"),
            # Spack's compiler wrappers add the target's flags; no -march=native
            self.define("PAIRKIT_NATIVE", False),
            # the tests need a LAMMPS build tree and the reference data beside a checkout
            self.define("PAIRKIT_TESTS", False),
            self.define("CMAKE_INSTALL_LIBDIR", "lib"),
        ]
        if self.spec.satisfies("+cuda"):
            archs = self.spec.variants["cuda_arch"].value
            if "none" not in archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args

    def setup_run_environment(self, env):
        # prepend, never set: lammps+plugin and other plugin packages add their directories too
        env.prepend_path("LAMMPS_PLUGIN_PATH", self.prefix.lib.lammps.plugins)
