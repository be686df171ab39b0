#!/usr/bin/env bash
# Packs libiashim.so, iashim-trace and iashim-pair-predict, with every non-glibc shared
# library they load, for scripts/gpu-check.sh on a GPU machine that has none of the
# build's packages.
# Run on the build machine after the build (scripts/setup.sh).
#
#   scripts/gpu-bundle.sh [--build-dir DIR] [--out DIR] [--no-tar]
#
# Makes DIR/iashim-gpu-bundle/ (default dist/) and DIR/iashim-gpu-bundle.tar.gz:
#   lib/          libiashim.so, iashim-trace, iashim-pair-predict and their libraries, each
#                 with RUNPATH $ORIGIN
#   bench/gpu/    the CUDA workload (compiled on the GPU machine) and the PyTorch loop
#   scripts/      gpu-check.sh
#   BUNDLE-INFO   glibc of this machine and glibc needed by lib/, C++ runtime versions
#   GLIBC-NEEDS   the newest glibc symbol version each file in lib/ needs
#   MANIFEST      where each file in lib/ came from
# On the GPU machine: tar xzf iashim-gpu-bundle.tar.gz && iashim-gpu-bundle/scripts/gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build_dir=build
out_dir=dist
make_tar=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir|--out)
      [[ $# -ge 2 && -n "$2" ]] || { echo "gpu-bundle.sh: $1 needs a directory" >&2; exit 2; }
      if [[ "$1" == --build-dir ]]; then build_dir="$2"; else out_dir="$2"; fi
      shift 2 ;;
    --no-tar) make_tar=0; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu-bundle.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "gpu-bundle.sh: $*" >&2; exit 1; }

for tool in patchelf ldd readelf tar install; do
  command -v "$tool" >/dev/null ||
    die "'$tool' is not installed (scripts/setup.sh installs patchelf; readelf is in binutils)"
done
[[ -d "$build_dir" ]] || die "build directory '$build_dir' does not exist (run scripts/setup.sh first)"

# The artefacts are the bundle's reason to exist: no partial bundle without them.
shim="$build_dir/libiashim/libiashim.so"
trace_tool="$build_dir/libiashim/iashim-trace"
predict_tool="$build_dir/bench/predict/iashim-pair-predict"
missing=()
for f in "$shim" "$trace_tool" "$predict_tool"; do [[ -f "$f" ]] || missing+=("$f"); done
if [[ ${#missing[@]} -gt 0 ]]; then
  die "missing ${missing[*]}: build libiashim first (scripts/setup.sh, or cmake --build $build_dir)"
fi
[[ -x "$trace_tool" ]] || die "$trace_tool is not executable"
[[ -x "$predict_tool" ]] || die "$predict_tool is not executable"
for f in bench/gpu/workload.cu bench/gpu/torch_loop.py scripts/gpu-check.sh; do
  [[ -f "$f" ]] || die "missing $f in this checkout"
done

is_elf() { [[ "$(head -c 4 "$1" 2>/dev/null)" == $'\177ELF' ]]; }
is_elf "$shim" || die "$shim is not an ELF file"
is_elf "$trace_tool" || die "$trace_tool is not an ELF file"
is_elf "$predict_tool" || die "$predict_tool is not an ELF file"

# glibc (and the dynamic loader) must come from the GPU machine: bundling them is unsafe.
is_glibc() {
  case "$1" in
    linux-vdso.so.*|linux-gate.so.*|ld-linux*.so.*|ld64.so.*) return 0 ;;
    libc.so.6|libm.so.6|libmvec.so.1|libdl.so.2|librt.so.1|libpthread.so.0) return 0 ;;
    libresolv.so.2|libutil.so.1|libanl.so.1|libBrokenLocale.so.1|libnsl.so.1) return 0 ;;
    libthread_db.so.1|libc_malloc_debug.so.0|libnss_*.so.2) return 0 ;;
  esac
  return 1
}
# The CUDA driver and NVML belong to the GPU machine's driver install, never to us.
is_driver() {
  case "$1" in
    libcuda.so*|libnvidia-*.so*|libcudadebugger.so*|libnvcuvid.so*) return 0 ;;
  esac
  return 1
}

# Lists "soname<TAB>path" for every library FILE loads (ldd gives the whole closure).
# LD_LIBRARY_PATH is dropped so that build-tree libraries (simgpu's libcuda) never leak in.
# Call as list=$(deps_of F) || exit 1: it runs in a subshell, where die cannot end the script.
deps_of() {
  local file=$1 line name path rc=0 out
  out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$file" 2>&1) || rc=$?
  if [[ $rc -ne 0 ]]; then
    die "ldd $file failed: $out"
  fi
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    case "$line" in
      *"statically linked"*) continue ;;
      *" => not found"*)
        name=${line%% =>*}
        is_driver "$name" && continue
        die "$file needs $name, which is not installed here (ldd: not found)" ;;
      *" => "*)
        name=${line%% =>*}
        path=${line#*=> }
        path=${path%% (0x*}
        [[ -n "$path" ]] || continue   # "linux-vdso.so.1 =>  (0x...)" on old glibc
        printf '%s\t%s\n' "$name" "$path" ;;
      *) continue ;;  # the loader itself and the vDSO: no "=>"
    esac
  done <<< "$out"
}

bundle_name=iashim-gpu-bundle
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
final="$out_dir/$bundle_name"
stage="$out_dir/.$bundle_name.tmp.$$"
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
mkdir -p "$stage/lib" "$stage/bench/gpu" "$stage/scripts"

install -m 0755 "$shim" "$stage/lib/libiashim.so"
install -m 0755 "$trace_tool" "$stage/lib/iashim-trace"
install -m 0755 "$predict_tool" "$stage/lib/iashim-pair-predict"
manifest=("libiashim.so <- $(realpath "$shim")" "iashim-trace <- $(realpath "$trace_tool")"
          "iashim-pair-predict <- $(realpath "$predict_tool")")

declare -A origin=()
skipped_driver=()
for top in "$shim" "$trace_tool" "$predict_tool"; do
  list=$(deps_of "$top") || exit 1
  while IFS=$'\t' read -r name path; do
    [[ -n "$name" ]] || continue
    is_glibc "$name" && continue
    if is_driver "$name"; then skipped_driver+=("$name"); continue; fi
    real=$(realpath "$path") || die "cannot resolve $path (needed by $top)"
    if [[ -n "${origin[$name]:-}" && "${origin[$name]}" != "$real" ]]; then
      die "$name resolves to two files: ${origin[$name]} and $real"
    fi
    origin[$name]=$real
  done <<< "$list"
done
for name in $(printf '%s\n' "${!origin[@]}" | sort); do
  install -m 0755 "${origin[$name]}" "$stage/lib/$name"
  manifest+=("$name <- ${origin[$name]}")
done
if [[ ${#skipped_driver[@]} -gt 0 ]]; then
  echo "gpu-bundle.sh: note: not bundled (the GPU machine's driver provides them):" \
    "$(printf '%s\n' "${skipped_driver[@]}" | sort -u | tr '\n' ' ')" >&2
fi

# RUNPATH $ORIGIN on every ELF file: each finds its dependencies beside itself, and
# RUNPATH (unlike RPATH) still lets LD_LIBRARY_PATH override for debugging.
# shellcheck disable=SC2016  # literal: the dynamic loader expands $ORIGIN, not the shell
origin_token='$ORIGIN'
for f in "$stage"/lib/*; do
  is_elf "$f" || die "$f is not an ELF file"
  patchelf --set-rpath "$origin_token" "$f" || die "patchelf --set-rpath failed on $f"
  [[ "$(patchelf --print-rpath "$f")" == "$origin_token" ]] || die "RUNPATH of $f did not stick"
  [[ "$(readelf -d "$f")" == *"(RUNPATH)"* ]] || die "$f has RPATH, not RUNPATH, after patchelf"
done

# Prove it: every non-glibc library must now resolve inside the bundle, not from this system.
for f in "$stage"/lib/*; do
  list=$(deps_of "$f") || exit 1
  while IFS=$'\t' read -r name path; do
    [[ -n "$name" ]] || continue
    is_glibc "$name" && continue
    [[ "$(dirname "$(realpath "$path")")" == "$(realpath "$stage/lib")" ]] ||
      die "after patching, $(basename "$f") still loads $name from $path"
  done <<< "$list"
done
# And that the dynamic loader accepts the patched shim as a preload (pass-through mode).
preload_out=$(env -i IASHIM_DISABLE=1 LD_PRELOAD="$stage/lib/libiashim.so" /bin/true 2>&1) ||
  die "/bin/true failed under LD_PRELOAD of the bundled shim: $preload_out"
case "$preload_out" in
  *"cannot be preloaded"*|*"error while loading"*|*"not found"*)
    die "the bundled shim does not preload cleanly: $preload_out" ;;
esac

# glibc: what this machine has and the newest symbol version each file in lib/ needs.
# Per file, because gpu-check.sh may replace libstdc++/libgcc_s by the GPU machine's own,
# and then only the remaining files' needs count.
max_version() { sort -V | tail -n 1; }
glibc_built=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
for f in "$stage"/lib/*; do
  v=$(readelf -V --wide "$f" | { grep -o 'Name: GLIBC_[0-9][0-9.]*' || true; } |
    sed 's/Name: GLIBC_//' | max_version)
  echo "${v:-none} $(basename "$f")"
done | sort -V > "$stage/GLIBC-NEEDS"
glibc_needed=$(awk '$1 != "none" { print $1 }' "$stage/GLIBC-NEEDS" | max_version)
# C++ runtime versions the bundled copies provide; gpu-check.sh keeps the newer of these
# and the GPU machine's own, since a process can hold only one libstdc++.
provides() {
  [[ -f "$stage/lib/$1" ]] || return 0
  { grep -ao "$2[0-9][0-9.]*[0-9]" "$stage/lib/$1" || true; } | sed "s/^$2//" | max_version
}
glibcxx=$(provides libstdc++.so.6 GLIBCXX_)
gcc_s=$(provides libgcc_s.so.1 GCC_)

git_rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
{
  echo "# iashim GPU bundle: made by scripts/gpu-bundle.sh; read by scripts/gpu-check.sh"
  echo "bundle_format=1"
  echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git_rev=$git_rev"
  echo "built_on=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null | tr ' ' '_')"
  echo "arch=$(uname -m)"
  echo "glibc_built=$glibc_built"
  echo "glibc_needed=${glibc_needed:-none}"
  echo "glibcxx_bundled=${glibcxx:-none}"
  echo "gcc_s_bundled=${gcc_s:-none}"
} > "$stage/BUNDLE-INFO"
printf '%s\n' "${manifest[@]}" > "$stage/MANIFEST"

# All of bench/gpu/ travels, so files added there later need no change here.
find bench/gpu -maxdepth 1 -type f -exec cp -p {} "$stage/bench/gpu/" \;
install -m 0755 scripts/gpu-check.sh "$stage/scripts/gpu-check.sh"
cat > "$stage/README.md" <<EOF
# iashim GPU bundle

Checks \`libiashim.so\` on a machine with a real NVIDIA GPU, without building iashim there.
Made from iashim $git_rev on $(uname -m), glibc $glibc_built.

Needs on the GPU machine: the NVIDIA driver (\`nvidia-smi\`), the CUDA toolkit's \`nvcc\`
(only to compile \`bench/gpu/workload.cu\`), glibc ${glibc_needed:-$glibc_built} or newer,
bash and coreutils. PyTorch with CUDA is optional (\`PYTHON=/path/to/python\` picks the
interpreter).

    tar xzf iashim-gpu-bundle.tar.gz
    iashim-gpu-bundle/scripts/gpu-check.sh

It prints GPU details, the shim's overhead, trace and quota checks and a summary table,
meant to be pasted into a report; logs and traces stay in the work directory it names.
\`lib/\` holds the shim, \`iashim-trace\` and their libraries, each with RUNPATH \`\$ORIGIN\`;
\`MANIFEST\` says where each came from, \`BUNDLE-INFO\` and \`GLIBC-NEEDS\` what they need.
Where the GPU machine's own libstdc++/libgcc_s is at least as new as the bundled copy,
gpu-check.sh uses it instead, which also lowers the glibc needed.
EOF

rm -rf "$final"
mv "$stage" "$final"
trap - EXIT
echo "gpu-bundle.sh: made $final ($(find "$final/lib" -type f | wc -l) files in lib/, needs glibc >= ${glibc_needed:-?})"
if [[ $make_tar -eq 1 ]]; then
  tar -C "$out_dir" -czf "$out_dir/$bundle_name.tar.gz.tmp" "$bundle_name"
  mv "$out_dir/$bundle_name.tar.gz.tmp" "$out_dir/$bundle_name.tar.gz"
  echo "gpu-bundle.sh: made $out_dir/$bundle_name.tar.gz ($(du -h "$out_dir/$bundle_name.tar.gz" | cut -f1))"
fi
echo "gpu-bundle.sh: on the GPU machine: tar xzf $bundle_name.tar.gz && $bundle_name/scripts/gpu-check.sh"
