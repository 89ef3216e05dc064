# `cmake --install`: the ptxsim CLI, its CUDA shim libraries, the in-process API (sim/api.h and the
# headers it includes, the static libraries behind it) and a package config, so that
#   find_package(ptxsim) + target_link_libraries(app ptxsim::ptxsim)
# works (examples/inprocess builds that way in the `install.find_package` test).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Headers keep their source paths (#include "sim/api.h") under include/ptxsim, so that the
# generic directory names sim/ and model/ do not land in the prefix's include/ itself.
set(PTXSIM_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/ptxsim)
install(FILES sim/api.h DESTINATION ${PTXSIM_INSTALL_INCLUDEDIR}/sim)
install(FILES sim/ptx/diag.h DESTINATION ${PTXSIM_INSTALL_INCLUDEDIR}/sim/ptx)
install(FILES model/memory/global_memory.h DESTINATION ${PTXSIM_INSTALL_INCLUDEDIR}/model/memory)

set_target_properties(ptxsim_sim PROPERTIES EXPORT_NAME ptxsim)
set_target_properties(ptxsim_model PROPERTIES EXPORT_NAME model)
install(TARGETS ptxsim_sim ptxsim_model EXPORT ptxsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${PTXSIM_INSTALL_INCLUDEDIR})
install(EXPORT ptxsimTargets NAMESPACE ptxsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxsim)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ptxsimConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/ptxsimConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxsim)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ptxsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ptxsimConfig.cmake ${CMAKE_BINARY_DIR}/ptxsimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxsim)

install(TARGETS ptxsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The shim's libcuda.so.1 and libcudart.so.13 go to a private directory: in lib/ itself they would
# shadow the real driver for every program of the prefix. `ptxsim exec` finds them there
# (tools/ptxsim/exec_command.cpp); libcudart finds libcuda beside itself through $ORIGIN.
if(TARGET ptxsim_cuda_runtime)
  set_target_properties(ptxsim_cuda_runtime PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS ptxsim_cuda_driver ptxsim_cuda_runtime
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ptxsim/cuda_shim NAMELINK_SKIP)
endif()
file(RELATIVE_PATH PTXSIM_SHIM_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/ptxsim/cuda_shim)
target_compile_definitions(ptxsim_cli_lib PRIVATE PTXSIM_SHIM_FROM_BIN="${PTXSIM_SHIM_FROM_BIN}")
