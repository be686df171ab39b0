#!/usr/bin/env bash
# The hook coverage check fails when it should: a launch family dropped from
# the hook list, a name listed that the driver does not export, and a name both
# hooked and listed are each reported by name.
#
#   hook_coverage_check_test.sh REPO_ROOT CUDA_INCLUDE_DIR
set -euo pipefail

repo=${1:?usage: hook_coverage_check_test.sh REPO_ROOT CUDA_INCLUDE_DIR}
include=${2:?usage: hook_coverage_check_test.sh REPO_ROOT CUDA_INCLUDE_DIR}
check="$repo/tests/libiashim/hook_coverage_check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rc=0
"$check" "$repo" "$include" >/dev/null 2>&1 || rc=$?
if [[ $rc -eq 77 ]]; then exit 77; fi
[[ $rc -eq 0 ]] || { echo "the check fails on the repository itself (rc $rc)" >&2; exit 1; }

# Runs the check on a copy of the two lists changed by `sed_hooks` and
# `sed_listed`, and expects it to fail naming `expected`.
expect_failure() {
  local what=$1 sed_hooks=$2 sed_listed=$3 expected=$4
  rm -rf "$tmp/repo" && mkdir -p "$tmp/repo/libiashim/src"
  sed "$sed_hooks" "$repo/libiashim/src/hooked_entry_points.inc" >"$tmp/repo/libiashim/src/hooked_entry_points.inc"
  sed "$sed_listed" "$repo/libiashim/unhooked_entry_points.txt" >"$tmp/repo/libiashim/unhooked_entry_points.txt"
  local out status=0
  out=$("$check" "$tmp/repo" "$include" 2>&1) || status=$?
  if [[ $status -ne 1 ]] || ! grep -qx "  $expected" <<<"$out"; then
    echo "FAIL: $what: expected exit 1 naming $expected, got exit $status:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "ok: $what is reported ($expected)"
}

expect_failure "an unhooked legacy launch" '/^IASHIM_HOOK(cuLaunchGrid,/d' '' cuLaunchGrid
expect_failure "an unhooked array allocation" '/^IASHIM_HOOK(cuArray3DCreate_v2,/d' '' cuArray3DCreate_v2
# shellcheck disable=SC2016  # "$a" is sed's append command
expect_failure "a listed name the driver does not export" '' '$a cuMemAllocEverything' cuMemAllocEverything
# shellcheck disable=SC2016
expect_failure "a name both hooked and listed" '' '$a cuMemAlloc_v2' cuMemAlloc_v2
