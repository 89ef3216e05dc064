# `ptxsim run --explore` and `--racecheck` on racecheck.cu's race_missing_sync (a case file written
# here): the racy kernel's output depends on the warp interleaving, so some of 16 schedules differ
# from the first and are listed with their seeds; the race-free kernel has none; --racecheck
# reports the race as warnings with exit code 0.
# -DPTXSIM=<ptxsim> -DPTX=<racecheck.sm_90a.ptx> -DWORK=<dir>
file(MAKE_DIRECTORY ${WORK})
function(write_case racy)
  file(WRITE ${WORK}/case${racy}.json "{ \"ptx\": \"${PTX}\", \"kernel\": \"_Z17race_missing_syncPKiPii\",
  \"grid\": [1], \"block\": [64],
  \"buffers\": { \"in\": { \"bytes\": 256, \"init\": { \"iota\": \"u32\" } }, \"out\": { \"bytes\": 256, \"init\": \"zero\" } },
  \"params\": [ { \"ptr\": \"in\" }, { \"ptr\": \"out\" }, { \"u32\": ${racy} } ], \"outputs\": [ \"out\" ] }")
endfunction()
write_case(0)
write_case(1)

execute_process(COMMAND ${PTXSIM} run ${WORK}/case1.json --explore 16 --json RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "racy --explore: exit ${rc}\n${out}")
endif()
string(JSON n GET "${out}" explore schedules)
string(JSON nd LENGTH "${out}" explore differing)
if(NOT n EQUAL 16 OR nd LESS 1)
  message(FATAL_ERROR "racy --explore: expected differing schedules among 16:\n${out}")
endif()
string(JSON seed GET "${out}" explore differing 0 seed)
string(JSON diff GET "${out}" explore differing 0 differences)
if(NOT diff MATCHES "^output 'out' sha256 ")
  message(FATAL_ERROR "racy --explore: the difference should be the output: ${diff}")
endif()
# The seed reproduces the schedule: its single run gives the differing output.
string(REGEX MATCH "sha256 ([0-9a-f]+)" _ "${diff}")
set(want ${CMAKE_MATCH_1})
execute_process(COMMAND ${PTXSIM} run ${WORK}/case1.json --explore 1 --seed ${seed} --json OUTPUT_VARIABLE one)
string(JSON got GET "${one}" outputs out sha256)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "--explore 1 --seed ${seed} gave ${got}, the explored schedule ${want}")
endif()

execute_process(COMMAND ${PTXSIM} run ${WORK}/case0.json --explore 16 --json RESULT_VARIABLE rc OUTPUT_VARIABLE out)
string(JSON nd LENGTH "${out}" explore differing)
if(NOT rc EQUAL 0 OR NOT nd EQUAL 0)
  message(FATAL_ERROR "race-free --explore: expected no differing schedule:\n${out}")
endif()

execute_process(COMMAND ${PTXSIM} run ${WORK}/case1.json --racecheck --json RESULT_VARIABLE rc OUTPUT_VARIABLE out)
string(JSON nd LENGTH "${out}" diagnostics)
string(JSON m0 GET "${out}" diagnostics 0 message)
string(JSON s0 GET "${out}" diagnostics 0 severity)
if(NOT rc EQUAL 0 OR NOT nd EQUAL 2 OR NOT s0 STREQUAL "warning" OR NOT m0 MATCHES "^race \\(WAR\\) on shared memory")
  message(FATAL_ERROR "racy --racecheck: expected 2 race warnings and exit 0 (exit ${rc}):\n${out}")
endif()
execute_process(COMMAND ${PTXSIM} run ${WORK}/case0.json --racecheck --json RESULT_VARIABLE rc OUTPUT_VARIABLE out)
string(JSON nd LENGTH "${out}" diagnostics)
if(NOT rc EQUAL 0 OR NOT nd EQUAL 0)
  message(FATAL_ERROR "race-free --racecheck: expected silence:\n${out}")
endif()
