# The simulator's two libraries, shared by the main build and the Python package (python/CMakeLists.txt):
# ptxsim_model (functional hardware units, no PTX text) and ptxsim_sim (PTX front end and engine).
# PTXSIM_ROOT is the repository root; callers set C++20 and the warning flags first.
include_guard(GLOBAL)
get_filename_component(PTXSIM_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
# model/: functional hardware units, no PTX text.
file(GLOB_RECURSE MODEL_SOURCES CONFIGURE_DEPENDS ${PTXSIM_ROOT}/model/*.cpp)
add_library(ptxsim_model STATIC ${MODEL_SOURCES})
target_include_directories(ptxsim_model PUBLIC $<BUILD_INTERFACE:${PTXSIM_ROOT}>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/ptxsim>)
target_compile_features(ptxsim_model PUBLIC cxx_std_20)
target_compile_options(ptxsim_model PRIVATE ${PTXSIM_WARNINGS})
# Explicit IEEE rounding modes are set with fesetround; keep the compiler from folding across them.
target_compile_options(ptxsim_model PRIVATE -frounding-math)
# The callers compile everything with -ffp-contract=off: in GNU C++ mode GCC would otherwise fuse
# a*b+c into one fma (one rounding instead of two) wherever the target has one (always on aarch64,
# on x86-64 only in functions built for x86-64-v3), so results would depend on the host. The tile
# datapath is the exception: its arithmetic is exact by construction (tile.cpp's header comment),
# so a fused step gives the same bits, and its x86-64-v3 build keeps its fmas. (-Wno-psabi: GCC's
# note that passing its 32-byte vector types by value changed ABI in GCC 4.6, which the file's
# pragma does not silence; they never cross a compiled-function boundary.)
set_source_files_properties(${PTXSIM_ROOT}/model/tensorcore/tile.cpp PROPERTIES COMPILE_OPTIONS
                            "-ffp-contract=fast;-Wno-psabi")

# sim/: PTX front end and execution engine.
file(GLOB_RECURSE SIM_SOURCES CONFIGURE_DEPENDS ${PTXSIM_ROOT}/sim/*.cpp)
add_library(ptxsim_sim STATIC ${SIM_SOURCES})
find_package(Threads REQUIRED)  # a launch's clusters run on a pool of threads (sim/exec/cluster_pool.cpp)
target_link_libraries(ptxsim_sim PUBLIC ptxsim_model Threads::Threads)
# What applications link (the name find_package(ptxsim) exports, docs/cuda-shim.md).
add_library(ptxsim::ptxsim ALIAS ptxsim_sim)
target_compile_options(ptxsim_sim PRIVATE ${PTXSIM_WARNINGS} -frounding-math)

