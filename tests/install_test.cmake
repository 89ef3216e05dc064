# The install.find_package test: installs the build tree BUILD into a fresh prefix under WORK, builds
# examples/inprocess (SOURCE) against the installed package alone (find_package(ptxsim)), runs it
# on examples/saxpy, and checks that the installed CLI runs and finds its CUDA shim libraries.
foreach(v BUILD SOURCE WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake needs -D${v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
run("configuring examples/inprocess" ${CMAKE_COMMAND} -S ${SOURCE}/examples/inprocess -B ${WORK}/example
    -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run("building examples/inprocess" ${CMAKE_COMMAND} --build ${WORK}/example)
run("the example" ${WORK}/example/ptxsim_inprocess_example ${SOURCE}/examples/saxpy/saxpy.ptx)
if(NOT out MATCHES "saxpy: [0-9]+ thread-instructions, y\\[4095\\] = 4089: PASS")
  message(FATAL_ERROR "unexpected output of the example:\n${out}")
endif()
run("the installed ptxsim" ${prefix}/bin/ptxsim run ${SOURCE}/examples/saxpy/case.json)
if(NOT out MATCHES "status: completed")
  message(FATAL_ERROR "unexpected output of the installed ptxsim:\n${out}")
endif()
if(EXISTS ${BUILD}/cuda_shim/libcudart.so.13)
  # `ptxsim exec` with the shim found in the installed layout: /bin/true needs no CUDA at all.
  run("the installed ptxsim exec" ${prefix}/bin/ptxsim exec -- /bin/true)
endif()
file(REMOVE_RECURSE ${WORK})
