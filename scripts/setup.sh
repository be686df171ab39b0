#!/usr/bin/env bash
# Installs what iashim needs from Debian packages and builds it.
# Idempotent: packages already present are not reinstalled, and the build is incremental.
#
#   scripts/setup.sh                      # install + build into build/
#   scripts/setup.sh --sanitize address   # ASan+UBSan (clang) into build-asan/: what
#                                         # `ctest -L sanitize` runs, and the fuzzers
#   scripts/setup.sh --sanitize thread    # TSan (clang) into build-tsan/: what -L threaded runs
#   scripts/setup.sh --fuzz               # only the fuzzers, in build-asan/fuzz/
#   scripts/setup.sh --no-build           # install packages only
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
build=1
fuzz=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sanitize) sanitize="${2:-}"; shift 2 ;;
    --no-build) build=0; shift ;;
    --fuzz) fuzz=1; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$sanitize" in
  "") build_dir=build ;;
  address) build_dir=build-asan ;;
  thread) build_dir=build-tsan ;;
  *) echo "setup.sh: --sanitize must be 'address' or 'thread' (got '$sanitize')" >&2; exit 2 ;;
esac
if [[ $fuzz -eq 1 ]]; then
  # The fuzzers live in the ASan+UBSan tree (cmake/Fuzz.cmake).
  [[ -n "$sanitize" && "$sanitize" != address ]] && {
    echo "setup.sh: the fuzzers are built with ASan+UBSan; --fuzz does not combine with --sanitize $sanitize" >&2
    exit 2
  }
  sanitize=address
  build_dir=build-asan
fi

packages=(
  build-essential cmake ninja-build pkg-config git
  libzmq3-dev cppzmq-dev libflatbuffers-dev flatbuffers-compiler
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libncurses-dev tmux procps
  patchelf  # scripts/gpu-bundle.sh: RUNPATH $ORIGIN on bundled libraries
  nlohmann-json3-dev  # iashim-clustersim: reads Gavel's throughputs file, writes reports
  gnuplot-nox  # scripts/clustersim-report.sh: the PNG plots
  jq  # scripts/live-replay.sh: reads throughputs and status JSON
  libslurm-dev  # slurm/spank.h: the SPANK plugin (integrations/slurm)
)
# The sanitizer trees: clang and its runtimes (libclang_rt.fuzzer-x86_64.a for
# the fuzzers; Debian 12's clang is 14).
[[ -n "$sanitize" ]] && packages+=(clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup.sh: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# cuda.h comes from the CUDA toolkit, which Debian does not ship in main.
cuda_dirs=()
[[ -n "${CUDA_HOME:-}" ]] && cuda_dirs+=("$CUDA_HOME/include")
[[ -n "${CUDA_PATH:-}" ]] && cuda_dirs+=("$CUDA_PATH/include")
cuda_dirs+=(/usr/local/cuda/include /usr/include)
found=""
for d in "${cuda_dirs[@]}"; do
  if [[ -f "$d/cuda.h" ]]; then found="$d"; break; fi
done
if [[ -z "$found" ]]; then
  echo "setup.sh: cuda.h not found; looked in: ${cuda_dirs[*]}" >&2
  echo "setup.sh: install the CUDA toolkit headers, or set CUDA_HOME so that \$CUDA_HOME/include/cuda.h exists." >&2
  exit 1
fi

[[ $build -eq 1 ]] || exit 0
jobs=$(nproc)
if [[ -n "$sanitize" ]]; then
  # Clang: it compiles the instrumented tests 2-5x faster than GCC 12
  # (cmake/Sanitizers.cmake), and the same ASan+UBSan tree builds the fuzzers.
  # A tree configured earlier with another compiler is made afresh: CMake
  # cannot switch compilers in place.
  if [[ -f "$build_dir/CMakeCache.txt" ]] &&
     ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' "$build_dir/CMakeCache.txt"; then
    echo "setup.sh: $build_dir/ was configured with another compiler; configuring it afresh with clang"
    rm -rf "$build_dir"
  fi
  fuzz_option=OFF
  [[ $sanitize == address ]] && fuzz_option=ON
  cmake -S . -B "$build_dir" -G Ninja -DCUDA_INCLUDE_DIR="$found" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DIASHIM_SANITIZE="$sanitize" -DIASHIM_FUZZ=$fuzz_option >/dev/null
  if [[ $fuzz -eq 1 ]]; then
    cmake --build "$build_dir" -j "$jobs" --target fuzz_all
    echo "setup.sh: built the fuzz targets into $build_dir/fuzz/"
    exit 0
  fi
  # Only what `ctest -L sanitize` runs (cmake/Testing.cmake) and the fuzzers:
  # the tools and benchmarks no sanitized test runs would only cost build time.
  # TSan: only the test programs that start threads (cmake/Testing.cmake).
  targets=(sanitize_tests)
  [[ $sanitize == thread ]] && targets=(thread_sanitize_tests)
  [[ $sanitize == address ]] && targets+=(fuzz_all)
  cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
  echo "setup.sh: built the sanitized tests$([[ $sanitize == address ]] && echo " and the fuzzers") into $build_dir/"
  exit 0
fi
cmake -S . -B "$build_dir" -G Ninja -DCUDA_INCLUDE_DIR="$found" >/dev/null
cmake --build "$build_dir" -j "$jobs"
echo "setup.sh: built into $build_dir/"
