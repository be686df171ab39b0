#!/usr/bin/env bash
# Which folder may include which (DESIGN.md, "Layers"), and that every include
# is written from the repository root, so it names its folder.
#
#   layering_check.sh SOURCE_DIR
#
# Dependencies point down: common/ below everything; the shim and simgpu above
# it and beside each other, never reaching into the daemon's folders; the
# coordinator's pure policy library below the daemon and the tools.
set -euo pipefail
cd "$1"
failed=0
quoted_includes() {  # quoted_includes DIR...: FILE:LINE:TARGET for every #include "..."
  grep -rnE --include='*.cc' --include='*.h' --include='*.inc' \
    '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$@" |
    sed -E 's/^([^:]*:[0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]*)".*/\1:\2/'
}
forbid() {  # forbid DIR REGEX WHY: no file under DIR includes a path matching REGEX
  local dir=$1 regex=$2 why=$3 hits
  [[ -d $dir ]] || return 0
  hits=$(quoted_includes "$dir" | grep -E ":($regex)[^:]*$" || true)
  if [[ -n $hits ]]; then
    echo "layering: $dir/ must not include $regex ($why):"
    echo "$hits" | sed 's/^/  /'
    failed=1
  fi
}

upper='coordinator/|bench/|tests/|integrations/'
forbid common "$upper|libiashim/|simgpu/|absl/|zmq\\.hpp" \
  "the lowest layer: linked into the preloaded shim, so no Abseil and no throwing cppzmq"
forbid libiashim "$upper|simgpu/|absl/" \
  "the shim depends only on common/ and schemas/; a preloaded library must not bring Abseil"
forbid simgpu "$upper|libiashim/|schemas/" "the simulated driver depends only on common/"
forbid coordinator "bench/|tests/|integrations/|libiashim/|simgpu/" \
  "the coordinator and its tools depend on common/ and schemas/, not on the shim or the simulator"
forbid coordinator/policy "coordinator/(cli|client|cluster|clustersim|daemon|metrics|state|top)/|schemas/" \
  "the policy library is pure: no wire format, nothing of the daemon or tools"
forbid coordinator/client "coordinator/(cli|cluster|clustersim|daemon|metrics|policy|state|top)/" \
  "the protocol client is what the CLI and the Slurm plugin share: the wire format and common/ only"
forbid coordinator/clustersim "coordinator/(cli|client|cluster|daemon|metrics|state|top)/|schemas/" \
  "the offline simulator runs the policy library and nothing of the daemon's"
for part in cli client cluster daemon metrics state top; do
  forbid "coordinator/$part" "coordinator/clustersim/" "the offline simulator is nobody's dependency"
done
forbid integrations "bench/|tests/|libiashim/|simgpu/|coordinator/(cli|daemon|top)/" \
  "a cluster engine's plugin links the protocol client, not a tool"

# Every quoted include names a file from the root (or from the build root, for
# generated headers), or a library's own folder.
libraries='^(absl|flatbuffers|gtest|gmock|benchmark|nlohmann|iashim)/'
generated='^(schemas/[a-z_]+_generated\.h|simgpu/generated/.*)$'
while IFS=: read -r file line target; do
  [[ $target =~ $libraries || $target =~ $generated || -f $target ]] && continue
  echo "layering: $file:$line: #include \"$target\" does not name a file from the repository root"
  failed=1
done < <(quoted_includes common libiashim simgpu coordinator integrations bench tests)

if [[ $failed -ne 0 ]]; then
  echo "layering: see DESIGN.md, \"Layers\", for which folder may include which"
  exit 1
fi
echo "layering: every include is written from the root and points down"
