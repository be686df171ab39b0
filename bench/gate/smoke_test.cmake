# ctest gate_bench_smoke: iashim-gate-bench --quick --mode split exits 0 and
# prints the split table. Usage: cmake -DBENCH=PATH -P smoke_test.cmake
execute_process(COMMAND ${BENCH} --quick --mode split
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "iashim-gate-bench exited with ${rc}:\n${err}")
endif()
if(NOT out MATCHES "\\| split 0\\.3/0\\.7 " OR NOT out MATCHES "\\| no shim ")
  message(FATAL_ERROR "iashim-gate-bench printed no split table:\n${out}\n${err}")
endif()
