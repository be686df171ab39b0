#!/usr/bin/env bash
# Regenerates the checked-in seed corpora under tests/fuzz/corpus/: binary
# messages, state records and files, and a launch trace from fuzz_seed_corpus
# (seed_corpus.cc), and text seeds from bench/data/ and the formats' READMEs.
# Needs the fuzz build (scripts/setup.sh --fuzz). Replaces what is there.
#
#   tests/fuzz/make_corpus.sh [BUILD_DIR]     # default build-asan
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-asan}
out=tests/fuzz/corpus
cmake --build "$build" --target fuzz_seed_corpus >/dev/null
# Inputs that once found a bug (regression-*) are kept.
[[ -d "$out" ]] && find "$out" -type f ! -name 'regression-*' -delete
mkdir -p "$out"
ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_seed_corpus" "$out"

# seed TARGET NAME: the seed's bytes from stdin.
seed() { mkdir -p "$out/$1"; cat >"$out/$1/$2"; }
# args TARGET NAME WORD...: an argv, NUL-separated as fuzz_input.h SplitArgs reads it.
args() {
  local target=$1 name=$2
  shift 2
  mkdir -p "$out/$target"
  if [[ $# -eq 0 ]]; then : >"$out/$target/$name"; else printf '%s\0' "$@" | head -c -1 >"$out/$target/$name"; fi
}

# simgpu: module images and device lists.
printf 'simgpu-module 1\n# comment\nkernel volta_sgemm_128x64_nn fixed_us=120 mem=0.2\nkernel elementwise_relu us_per_block=0.5 mem=0.9\n' |
  seed simgpu_module_image readme_example
printf 'simgpu-module 1\nkernel k fixed_us=1 us_per_block=2\n' | seed simgpu_module_image both_costs
printf 'Tesla V100-SXM2-32GB:32GiB:80' | seed simgpu_config default
printf '2xTesla V100-SXM2-32GB:32GiB:80,NVIDIA A10:24GiB:72\0job-ns_1\x001,0' | seed simgpu_config two_kinds
printf 'NVIDIA H200:141GiB:132\0default\0GPU-00000000-0000-0000-0000-000000000000,0' |
  seed simgpu_config uuid_visible

# iashim-fakejob: every shipped model profile, and command lines.
for f in bench/data/models/*.model; do seed fakejob_profile "$(basename "$f")" <"$f"; done
args fakejob_options model --model resnet50 --seconds 3
args fakejob_options iterations --model=bench/data/models/lstm.model --iterations 100 --sync stream --per-thread-stream --quiet
args fakejob_options list --list-models --models-dir bench/data/models
args fakejob_options gap --model vgg16 --host-gap-us 1500 --device 1 --driver libcuda.so.1

# The shim's environment: values in shim_config_fuzzer.cc's kVariables order.
env_seed() { local name=$1; shift; args shim_config "$name" "$@"; }
env_seed defaults
env_seed coordinator "" 8GiB tcp://127.0.0.1:5555 job-a /tmp/trace.%p 100 64 64 info 0.5 4 opportunistic 1 libcuda.so.1 0123456789abcdef0123456789abcdef
env_seed disabled 1 512MiB ipc:///tmp/iashim.sock "" "" 10 1 1 debug 1 0 guaranteed 0

# The cluster file: the README's example and the tests' forms.
sed -n '/^    # Two V100 nodes/,/^    *gpu 0-7 a100/p' coordinator/cluster/README.md | sed 's/^    //' |
  seed cluster_file readme_example
printf 'node gpu-02   # a comment after a node\r\n\tgpu 0 a100 80GB uuid=GPU-ff name="A100 #1 \\"spare\\" \\\\"\r\n' |
  seed cluster_file escapes_crlf
printf 'node b\ngpu 255 h200 16TiB\ngpu 0 h200 256MiB\nnode a\ngpu 0 t4 16GiB' | seed cluster_file limits

# iashim-clustersim's inputs: the first lines of the real traces.
for f in bench/data/gavel/msr-seed0/0e4a51.trace bench/data/gavel/msr-seed0/103959.trace; do
  head -n 6 "$f" | seed gavel_trace "$(basename "$f")"
done
python3 - "$out/gavel_throughputs" <<'PY'
# Three job types of the real file, v100 only, with their pairs.
import json, os, sys
d = json.load(open("bench/data/gavel/simulation_throughputs.json"))["v100"]
keys = sorted(d)[:3]
small = {"v100": {k: {kk: v for kk, v in d[k].items() if kk == "null" or kk in keys} for k in keys}}
os.makedirs(sys.argv[1], exist_ok=True)
json.dump(small, open(os.path.join(sys.argv[1], "v100_three_types"), "w"), indent=1)
PY
printf "('ResNet-18 (batch size 16)', 1)" | seed gavel_throughputs key
head -n 20 bench/data/alibaba-v2023/openb_node_list_gpu_node.csv | seed alibaba_nodes head20
head -n 20 bench/data/alibaba-v2023/openb_pod_list_default.csv | seed alibaba_pods head20
grep -m 5 -E ',[2-8],1000,' bench/data/alibaba-v2023/openb_pod_list_default.csv |
  { head -n 1 bench/data/alibaba-v2023/openb_pod_list_default.csv; cat; } | seed alibaba_pods multi_gpu
args clustersim_options replay --throughputs bench/data/gavel/simulation_throughputs.json --gpu-type v100 --trace bench/data/gavel/msr-seed0/0e4a51.trace --gpus 16 --policy fifo --out /tmp/x --json
args clustersim_options kfold --throughputs=t.json --gpu-type=v100 --kfold 5 --seed 3
args clustersim_options alibaba --alibaba-nodes nodes.csv --alibaba-pods pods.csv --max-pods 100 --alibaba-mode fill --alibaba-min-gain 0.1 --json

# The metrics endpoint.
printf 'GET /metrics HTTP/1.1\r\nHost: localhost:9400\r\nUser-Agent: Prometheus/2.45\r\nAccept: text/plain\r\n\r\n' |
  seed http_request prometheus
printf 'GET http://localhost:9400/metrics?x=1 HTTP/1.0\n\n' | seed http_request absolute_form
printf 'HEAD / HTTP/1.1\r\nHost: x\n\r\n' | seed http_request mixed_line_ends
for a in 127.0.0.1:9400 '[::1]:9400' localhost:9400 0.0.0.0:0; do
  printf '%s' "$a" | seed listen_address "$(printf '%s' "$a" | tr -c 'a-z0-9' _)"
done

# Command lines.
args daemon_options defaults
args daemon_options all --listen tcp://0.0.0.0:5555 --pub=tcp://0.0.0.0:5556 --state-dir /tmp/s --cluster c.txt --metrics 127.0.0.1:9400 --placement simple --min-gain 0.1 --slowdown-target 0.2 --heartbeat-timeout-s 5 --forget-after-s 30 --control-period-s 0.5 --budget-ttl-s 20
args daemon_options no_control --no-control --version
args cli_options run run --priority opportunistic --mem 10GiB --gpu 1 --job job-a --kind resnet50 --simgpu -- python train.py
args cli_options place place --coordinator tcp://10.0.0.1:5555 --timeout-s 0.5 --slowdown-target 0.1
args cli_options status status --json
args cli_options help help run
args top_options pub --pub tcp://127.0.0.1:5556
args top_options pub_eq --pub=ipc:///tmp/iashim-pub
args top_options help -h
echo "make_corpus.sh: wrote $(find "$out" -type f | wc -l) seeds under $out"
