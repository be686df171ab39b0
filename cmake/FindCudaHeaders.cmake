# Locates cuda.h from the CUDA toolkit. Only the header is used: simgpu provides
# the driver on machines without a GPU, the real libcuda.so.1 does elsewhere.
set(_cuda_hints)
if(DEFINED ENV{CUDA_HOME})
  list(APPEND _cuda_hints "$ENV{CUDA_HOME}/include")
endif()
if(DEFINED ENV{CUDA_PATH})
  list(APPEND _cuda_hints "$ENV{CUDA_PATH}/include")
endif()
list(APPEND _cuda_hints /usr/local/cuda/include /usr/include)
find_path(CUDA_INCLUDE_DIR cuda.h HINTS ${_cuda_hints} NO_DEFAULT_PATH)
if(NOT CUDA_INCLUDE_DIR)
  string(REPLACE ";" ", " _looked "${_cuda_hints}")
  message(FATAL_ERROR
    "cuda.h not found. Looked in: ${_looked}.\n"
    "Install the CUDA toolkit headers or point the build at them with "
    "CUDA_HOME=/path/to/cuda (cuda.h in $CUDA_HOME/include) or -DCUDA_INCLUDE_DIR=DIR.")
endif()
file(STRINGS "${CUDA_INCLUDE_DIR}/cuda.h" _cuda_version_line REGEX "^#define CUDA_VERSION [0-9]+")
string(REGEX REPLACE "^#define CUDA_VERSION ([0-9]+).*" "\\1" CUDA_HEADER_VERSION "${_cuda_version_line}")
message(STATUS "cuda.h: ${CUDA_INCLUDE_DIR} (CUDA_VERSION ${CUDA_HEADER_VERSION})")
add_library(cuda_headers INTERFACE)
target_include_directories(cuda_headers SYSTEM INTERFACE "${CUDA_INCLUDE_DIR}")
