# PAIRKIT_SANITIZE: build the C cores (src/core, src/<style>), the unit tests and the kernel
# benchmarks with the compiler's sanitizers, e.g. -DPAIRKIT_SANITIZE=address,undefined
# (tools/check-sanitizers.sh). Every finding is fatal: -fno-sanitize-recover=all makes UBSan
# stop the test like ASan does instead of printing and going on.
# The LAMMPS plugin is not sanitized: a sanitized shared object inside an unsanitized lmp
# needs the runtime preloaded and reports LAMMPS's own code, so the two are refused together.
set(PAIRKIT_SANITIZE "" CACHE STRING
    "Sanitizers for the C cores and unit tests, e.g. address,undefined (needs -DPAIRKIT_LAMMPS=OFF)")

if(PAIRKIT_SANITIZE)
  if(PAIRKIT_LAMMPS)
    message(FATAL_ERROR "PAIRKIT_SANITIZE=${PAIRKIT_SANITIZE} sanitizes the C cores and unit "
      "tests only; configure it with -DPAIRKIT_LAMMPS=OFF (the plugin is not sanitized)")
  endif()
  if(PAIRKIT_CUDA)
    message(FATAL_ERROR "PAIRKIT_SANITIZE does not cover the CUDA backends; configure it "
      "with -DPAIRKIT_CUDA=OFF")
  endif()
  if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "PAIRKIT_SANITIZE needs GCC or Clang (C compiler: ${CMAKE_C_COMPILER_ID})")
  endif()
  set(_pk_san -fsanitize=${PAIRKIT_SANITIZE} -fno-sanitize-recover=all)
  # frame pointers give the sanitizers' fast unwinder full stack traces
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_pk_san};-fno-omit-frame-pointer>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${_pk_san}>")
  # instrumented loops no longer vectorise; Clang would warn at every "omp simd"
  add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:C,CXX>,$<C_COMPILER_ID:Clang>>:-Wno-pass-failed>")
  message(STATUS "PairKit: C cores and unit tests sanitized (-fsanitize=${PAIRKIT_SANITIZE})")
endif()
