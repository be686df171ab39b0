# Applies the sanitizer chosen by IASHIM_SANITIZE to every target.
#
# The sanitizer trees are built with clang (scripts/setup.sh picks it): GCC 12
# compiles a test with ASan+UBSan 3-5x slower than clang 14 does (27 s vs
# 8.5 s for one daemon test here), which was most of CI's time. Either
# compiler works when configured by hand.
# Their reports' stack traces need only line tables: the top-level
# CMakeLists.txt gives RelWithDebInfo builds -g1.
# IASHIM_SANITIZE_ADDRESS / IASHIM_SANITIZE_THREAD tell code which runtime it
# runs under: GCC's __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__ do not exist
# in clang 14, and __has_feature does not exist in GCC.
if(IASHIM_SANITIZE STREQUAL "address")
  add_compile_definitions(IASHIM_SANITIZE_ADDRESS=1)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # Clang's UBSan also checks that a call through a function pointer
    # matches the callee's C++ type. The driver API and NVML are C interfaces
    # found with dlsym, whose callers (the shim, monitoring tools, our tests
    # acting as them) declare the functions themselves, and simgpu exports
    # untyped stubs for what it does not implement: C's rules, not C++ type
    # identity, say what a correct call is there. GCC has no such check.
    add_compile_options(-fno-sanitize=function)
  endif()
elseif(IASHIM_SANITIZE STREQUAL "thread")
  add_compile_definitions(IASHIM_SANITIZE_THREAD=1)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT IASHIM_SANITIZE STREQUAL "")
  message(FATAL_ERROR "IASHIM_SANITIZE must be '', 'address' or 'thread' (got '${IASHIM_SANITIZE}')")
endif()

# The sanitized trees compile at -O1 (it comes after the build type's -O2, so
# it wins): what the sanitizers' documentation advises for reports that point
# at the right lines, and clang compiles instrumented code faster at -O1 than
# at -O2, which is most of CI's time in those trees.
if(NOT IASHIM_SANITIZE STREQUAL "")
  add_compile_options(-O1)
endif()

# IASHIM_SHARED_NO_UNDEFINED: the link option that makes a shared library's
# unresolved symbols an error. Clang links a sanitizer's runtime into
# executables only, so an instrumented shared library's calls into it resolve
# when an instrumented program loads it; there the check cannot hold.
set(IASHIM_SHARED_NO_UNDEFINED -Wl,--no-undefined)
if(NOT IASHIM_SANITIZE STREQUAL "" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(IASHIM_SHARED_NO_UNDEFINED "")
endif()

# IASHIM_C_API_SANITIZE: options for code that receives the CUDA driver API's
# arguments (simgpu's entry points, the shim's hooks). A C caller may pass any integer in an
# enum parameter, and the driver must answer it with an error, which the tests
# check; clang's enum check would call the mere read undefined.
set(IASHIM_C_API_SANITIZE "")
if(IASHIM_SANITIZE STREQUAL "address" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(IASHIM_C_API_SANITIZE -fno-sanitize=enum)
endif()
