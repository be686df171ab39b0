# Test registration shared by every tests/ folder.
enable_testing()
include(GoogleTest)

# `sanitize_tests` builds exactly what `ctest -L sanitize` runs: the sanitizer
# trees of scripts/setup.sh --sanitize build only this target, not the tools
# and benchmarks that no sanitized test runs.
add_custom_target(sanitize_tests)

# iashim_sanitized_tests(TARGET KIND [PROPERTIES...]): discovers TARGET's
# GoogleTest cases with the one CTest label "sanitize:KIND" (gtest_discover_tests
# cannot pass a list of labels), so that they run again under ASan+UBSan and
# TSan, and makes `sanitize_tests` build TARGET (and, through TARGET's own
# add_dependencies, whatever it runs).
function(iashim_sanitized_tests target kind)
  gtest_discover_tests(${target} PROPERTIES LABELS "sanitize:${kind}" ${ARGN})
  add_dependencies(sanitize_tests ${target})
endfunction()
