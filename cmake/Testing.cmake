# Test registration shared by every tests/ folder.
enable_testing()
include(GoogleTest)

# `sanitize_tests` builds exactly what `ctest -L sanitize` runs: the ASan+UBSan
# tree of scripts/setup.sh --sanitize address builds only this target, not the
# tools and benchmarks that no sanitized test runs. `thread_sanitize_tests`
# builds what `ctest -L threaded` runs, the TSan tree's: only test programs
# whose code starts threads (the shim, simgpu, the /metrics server, the
# client's tests' fake servers). TSan finds races between threads of one
# process, and the rest (the coordinator's logic, the policy, the tools) runs
# on one thread, so building it again under TSan only cost CI minutes.
add_custom_target(sanitize_tests)
add_custom_target(thread_sanitize_tests)

# iashim_sanitized_tests(TARGET KIND [THREADED] [PROPERTIES...]): discovers
# TARGET's GoogleTest cases with the one CTest label "sanitize:KIND" (or
# "sanitize:KIND:threaded"; gtest_discover_tests cannot pass a list of
# labels), so that they run again under ASan+UBSan (and, THREADED, under TSan),
# and makes `sanitize_tests` (and `thread_sanitize_tests`) build TARGET (and,
# through TARGET's own add_dependencies, whatever it runs).
function(iashim_sanitized_tests target kind)
  set(properties ${ARGN})
  set(label "sanitize:${kind}")
  set(first "")
  if(properties)
    list(GET properties 0 first)
  endif()
  if(first STREQUAL "THREADED")
    list(REMOVE_AT properties 0)
    set(label "sanitize:${kind}:threaded")
    add_dependencies(thread_sanitize_tests ${target})
  endif()
  gtest_discover_tests(${target} PROPERTIES LABELS "${label}" ${properties})
  add_dependencies(sanitize_tests ${target})
endfunction()
