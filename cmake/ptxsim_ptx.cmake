# PTX built by nvcc at build time (never committed), shared by the CUDA kernel tests
# (tests/kernels) and the benchmark suite (bench/kernels).
#
#   PTXSIM_NVCC                 the nvcc found (empty when there is none, or with -DPTXSIM_USE_NVCC=OFF:
#                               callers skip their kernels)
#   ptxsim_add_ptx(OUT_VAR DIR dir ARCHS arch... SOURCES file.cu...)
#       one build rule per source and target: nvcc -arch=ARCH -ptx -O3 -lineinfo SRC -o DIR/NAME.ARCH.ptx;
#       OUT_VAR receives the .ptx paths (list them in a target in the same directory, e.g.
#       add_custom_target(... DEPENDS ${OUT_VAR})).
#   ptxsim_embed_ptx(CPP FILES file.ptx...)
#       a rule generating CPP, a C++ source defining ptxsim::bench::embedded_ptx()
#       (bench/kernels/embedded_ptx.h): each file's text as a string literal, keyed by its file
#       name without ".ptx" (e.g. "saxpy_reduce.sm_90a"). No FILES: an empty table.
include_guard(GLOBAL)

option(PTXSIM_USE_NVCC "Build PTX with nvcc when it is found (kernel tests, ptxsim bench kernels)" ON)
set(PTXSIM_NVCC "")
if(PTXSIM_USE_NVCC)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_NVCC_EXECUTABLE AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}")
    set(PTXSIM_NVCC "${CUDAToolkit_NVCC_EXECUTABLE}")
  elseif(EXISTS /usr/local/cuda/bin/nvcc)
    set(PTXSIM_NVCC /usr/local/cuda/bin/nvcc)
  endif()
endif()

set(PTXSIM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_ptx.cmake)

function(ptxsim_add_ptx out_var)
  cmake_parse_arguments(ARG "" "DIR" "ARCHS;SOURCES" ${ARGN})
  if(NOT PTXSIM_NVCC)
    message(FATAL_ERROR "ptxsim_add_ptx: no nvcc (check PTXSIM_NVCC before calling)")
  endif()
  set(outputs "")
  foreach(cu ${ARG_SOURCES})
    get_filename_component(name ${cu} NAME_WE)
    foreach(arch ${ARG_ARCHS})
      set(ptx ${ARG_DIR}/${name}.${arch}.ptx)
      add_custom_command(
        OUTPUT ${ptx}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_DIR}
        COMMAND ${PTXSIM_NVCC} -arch=${arch} -ptx -O3 -lineinfo ${cu} -o ${ptx}
        DEPENDS ${cu}
        COMMENT "nvcc ${name}.cu -> ${name}.${arch}.ptx"
        VERBATIM)
      list(APPEND outputs ${ptx})
    endforeach()
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()

function(ptxsim_embed_ptx cpp)
  cmake_parse_arguments(ARG "" "" "FILES" ${ARGN})
  string(REPLACE ";" "|" files "${ARG_FILES}")
  add_custom_command(
    OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} "-DOUT=${cpp}" "-DFILES=${files}" -P ${PTXSIM_EMBED_SCRIPT}
    DEPENDS ${ARG_FILES} ${PTXSIM_EMBED_SCRIPT}
    COMMENT "embedding PTX into ${cpp}"
    VERBATIM)
endfunction()
