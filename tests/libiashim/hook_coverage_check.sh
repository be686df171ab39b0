#!/usr/bin/env bash
# Holds the shim's hook list against the symbols the CUDA driver exports.
#
#   hook_coverage_check.sh REPO_ROOT CUDA_INCLUDE_DIR
#
# Reads the exports of the toolkit's stub driver (lib64/stubs/libcuda.so, next
# to the cuda.h the build uses) and fails if
#   - an export that matches the watch pattern (a launch, allocation, creation,
#     mapping, import or graph node) is neither hooked
#     (libiashim/src/hooked_entry_points.inc) nor listed with a reason in
#     libiashim/unhooked_entry_points.txt;
#   - a hooked or listed name is not exported (a typo, or an entry point a new
#     driver dropped).
# Exits 77 (skipped) when no stub driver is found.
set -euo pipefail

repo=${1:?usage: hook_coverage_check.sh REPO_ROOT CUDA_INCLUDE_DIR}
include=${2:?usage: hook_coverage_check.sh REPO_ROOT CUDA_INCLUDE_DIR}
watch='Launch|Alloc|Create|Map|Import|IpcOpen|Multicast|ExternalMemory|Add[A-Za-z]*Node|Instantiate|Upload|BatchMemOp|Register|Load'

stub=""
for candidate in "$include/../lib64/stubs/libcuda.so" "$include/../lib/stubs/libcuda.so" \
                 "$include/../lib/x86_64-linux-gnu/stubs/libcuda.so" \
                 "$include/../targets/x86_64-linux/lib/stubs/libcuda.so" \
                 /usr/lib/x86_64-linux-gnu/stubs/libcuda.so; do
  if [[ -f $candidate ]]; then stub=$candidate; break; fi
done
if [[ -z $stub ]]; then
  echo "hook_coverage_check: no stub libcuda.so beside $include (looked in lib64/stubs, lib/stubs," \
       "targets/x86_64-linux/lib/stubs, /usr/lib/x86_64-linux-gnu/stubs): skipped" >&2
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$stub" | awk '$3 ~ /^cu/ {print $3}' | sort -u >"$tmp/exported"
sed -n 's/^IASHIM_HOOK(\([A-Za-z0-9_]*\),.*/\1/p' "$repo/libiashim/src/hooked_entry_points.inc" |
  sort -u >"$tmp/hooked"
grep -E '^cu[A-Za-z0-9_]+$' "$repo/libiashim/unhooked_entry_points.txt" | sort -u >"$tmp/listed"

if [[ ! -s $tmp/exported || ! -s $tmp/hooked ]]; then
  echo "hook_coverage_check: read no exports from $stub or no hooks from hooked_entry_points.inc" >&2
  exit 1
fi

indent() { sed 's/^/  /'; }

status=0
both=$(comm -12 "$tmp/hooked" "$tmp/listed")
if [[ -n $both ]]; then
  echo "hooked and also listed as not hooked (remove them from libiashim/unhooked_entry_points.txt):" >&2
  indent <<<"$both" >&2
  status=1
fi
unknown=$(sort -u "$tmp/hooked" "$tmp/listed" | comm -23 - "$tmp/exported")
if [[ -n $unknown ]]; then
  echo "named in the hook list or the not-hooked list but not exported by $stub:" >&2
  indent <<<"$unknown" >&2
  status=1
fi
unclassified=$(grep -E "$watch" "$tmp/exported" | comm -23 - "$tmp/hooked" | comm -23 - "$tmp/listed" || true)
if [[ -n $unclassified ]]; then
  echo "exported by $stub, look like a launch or an allocation, and are neither hooked nor listed:" >&2
  indent <<<"$unclassified" >&2
  echo "hook each in libiashim/src/hooked_entry_points.inc, or add it to" \
       "libiashim/unhooked_entry_points.txt under the reason it needs no hook" >&2
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "hook_coverage_check: $(wc -l <"$tmp/exported") exports of $stub;" \
       "$(grep -cE "$watch" "$tmp/exported") watched, each hooked or listed; $(wc -l <"$tmp/hooked") hooks in all," \
       "$(wc -l <"$tmp/listed") listed as not hooked with a reason"
fi
exit $status
