# ctest gate_bench_smoke and gate_bench_harvest_smoke: iashim-gate-bench
# --quick in one mode exits 0 and prints that mode's table.
# Usage: cmake -DBENCH=PATH -DMODE=split|harvest -P smoke_test.cmake
if(MODE STREQUAL "split")
  set(args --quick --mode split)
  # The split table's rows.
  set(expect "\\| split 0\\.3/0\\.7 " "\\| no shim ")
elseif(MODE STREQUAL "harvest")
  # One pair: the sweep, the confirmation, the guaranteed job alone before and
  # after, and the control loop under a coordinator.
  set(args --quick --mode harvest --models transformer+resnet18)
  # The yardstick depends on timing (a busy machine may find no fixed share
  # within the target): either a share and its harvest, or "none".
  set(expect "\\| transformer\\+resnet18 +\\| 0\\.05 "
             "\\| transformer\\+resnet18 +\\| [0-9.]+ / [0-9.]+ +\\| ([0-9.]+ +\\| [0-9.]+ +\\| [0-9.]+|none within target +\\| - +\\| -) +\\| [0-9.]+ +\\| [0-9.]+ +\\| [0-9.]+ +\\| ([0-9.]+%|-) +\\|")
else()
  message(FATAL_ERROR "MODE must be split or harvest, not '${MODE}'")
endif()
execute_process(COMMAND ${BENCH} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "iashim-gate-bench exited with ${rc}:\n${err}")
endif()
foreach(pattern IN LISTS expect)
  if(NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "iashim-gate-bench printed no row matching ${pattern}:\n${out}\n${err}")
  endif()
endforeach()
