#!/usr/bin/env bash
# Configuring twice must not rebuild anything: scripts/setup.sh reconfigures on
# every run (scripts/demo.sh and scripts/test.sh call it), so a configure that
# changes a compile command recompiles every target it touches.
#
#   configure_twice.sh SOURCE_DIR CUDA_INCLUDE_DIR
#
# Configures a fresh tree, records every command ninja would run, configures
# again and compares. Ninja rebuilds a target whose command changed, so equal
# command lists mean the second configure leaves a built tree up to date.
set -euo pipefail
src=$1
cuda=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/iashim-configure-twice.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
cmake -S "$src" -B "$dir/build" -G Ninja -DCUDA_INCLUDE_DIR="$cuda" >"$dir/first.log"
ninja -C "$dir/build" -t commands >"$dir/first.commands"
cmake -S "$src" -B "$dir/build" >"$dir/second.log"
ninja -C "$dir/build" -t commands >"$dir/second.commands"
if ! diff -u "$dir/first.commands" "$dir/second.commands" >"$dir/diff"; then
  echo "configure_twice: the second configure changed $(grep -c '^+[^+]' "$dir/diff") build commands;"
  echo "a built tree would recompile those targets. First differences:"
  head -20 "$dir/diff"
  exit 1
fi
echo "configure_twice: $(wc -l <"$dir/first.commands") build commands, unchanged by a second configure"
