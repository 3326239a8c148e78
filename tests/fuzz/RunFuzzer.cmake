# One short fuzzing run as a CTest test:
#   cmake -DFUZZER=BIN -DSEEDS=DIR -DWORK=DIR -DSECONDS=N -P RunFuzzer.cmake
# Every run starts from the seeds alone (WORK is emptied), so the suite does not drift with what
# earlier runs found; new inputs go to WORK/corpus, a crash to WORK/ (crash-*, leak-*, oom-*).
foreach(var FUZZER SEEDS WORK SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunFuzzer.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=25 -rss_limit_mb=2560 -print_final_stats=1
          -artifact_prefix=${WORK}/ ${WORK}/corpus ${SEEDS}
  RESULT_VARIABLE result)
file(GLOB findings ${WORK}/crash-* ${WORK}/leak-* ${WORK}/oom-* ${WORK}/timeout-*)
if(NOT result EQUAL 0 OR findings)
  message(FATAL_ERROR "${FUZZER} found a problem (exit ${result}): ${findings}\n"
                      "Reproduce with: ${FUZZER} <file>; minimize with -minimize_crash=1 -runs=10000 <file>")
endif()
