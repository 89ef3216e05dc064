# Checks that LIB exports (as a defined function, strong or weak stub) every name in LIST, with the
# symbol version SUFFIX ("@@libcudart.so.13" for the runtime, "" for the driver): a name NVIDIA's
# library exports and ours lacks would stop a program at load time instead of failing one call.
#   -DNM=nm -DLIB=path -DLIST=exports.txt [-DSUFFIX=@@libcudart.so.13]
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB}")
endif()
file(STRINGS ${LIST} names REGEX "^[A-Za-z_]")
list(LENGTH names count)
set(missing "")
foreach(name IN LISTS names)
  string(FIND "${syms}" " ${name}${SUFFIX}\n" at)
  if(at EQUAL -1)
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${LIB} does not export: ${missing}")
endif()
message("${LIB} exports all ${count} names of ${LIST}")
