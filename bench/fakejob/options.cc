#include "bench/fakejob/options.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/fakejob/cli_args.h"
#include "bench/fakejob/data_parallel.h"
#include "bench/fakejob/number_parse.h"

namespace iashim::fakejob {
namespace {

namespace fs = std::filesystem;

absl::Status BadValue(absl::string_view option, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid value '", value, "' for ", option, ": ", why));
}

bool IsDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

std::string UsageText() {
  return absl::StrCat(
      "usage: iashim-fakejob --model NAME|PATH [options]\n"
      "Replays a DL training loop through the CUDA driver API (dlopen\n"
      "libcuda.so.1 + cuGetProcAddress_v2, as cudart does).\n"
      "\n"
      "  --model NAME|PATH     model profile (see --list-models), or a .model file\n"
      "  --seconds S           run for S seconds (default ",
      kDefaultSeconds,
      ")\n"
      "  --iterations N        run exactly N iterations instead\n"
      "  --device N            CUDA device ordinal (default 0; a rank's default is\n"
      "                        LOCAL_RANK)\n"
      "  --ranks N             data-parallel: start N rank processes, one GPU each\n"
      "                        (devices 0..N-1), as torchrun does (RANK, LOCAL_RANK,\n"
      "                        WORLD_SIZE, MASTER_ADDR, MASTER_PORT); each iteration\n"
      "                        ends with an all-reduce of the gradients\n"
      "  --devices N           data-parallel from one process driving GPUs 0..N-1\n"
      "  --gradient-mib X      MiB all-reduced per iteration, replacing the\n"
      "                        profile's gradient_mib\n"
      "  --per-thread-stream   resolve entry points with\n"
      "                        CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM and\n"
      "                        launch stream 0 work on the per-thread null stream\n"
      "  --sync ctx|stream|kernel\n"
      "                        iteration end: cuCtxSynchronize (default) or\n"
      "                        cuStreamSynchronize on each stream; 'kernel' also\n"
      "                        synchronises the kernel's stream after every launch\n"
      "  --host-gap-us X       host time per iteration in us, replacing the\n"
      "                        profile's (0: the job keeps the GPU busy)\n"
      "  --host-threads N      N more threads keep a CPU busy all run, as an\n"
      "                        intra-op pool or input pipeline does (default 0)\n"
      "  --checkpoint FILE     with --iterations, one GPU: resume from the iterations\n"
      "                        FILE records (none yet: from the first), and record\n"
      "                        them there every --checkpoint-every-s seconds and at\n"
      "                        the end, as a job Slurm requeues needs\n"
      "  --checkpoint-every-s S  (default ",
      kDefaultCheckpointEveryS,
      ")\n"
      "  --quiet               print only the summary line\n"
      "  --models-dir DIR      where <name>.model files live (else\n"
      "                        $IASHIM_MODELS_DIR, else bench/data/models)\n"
      "  --driver LIB          driver library to dlopen (default libcuda.so.1)\n"
      "  --list-models         list the available models and exit\n"
      "  --help                this text\n"
      "\n"
      "Run under torchrun (WORLD_SIZE set), it is that rank of the job.\n"
      "\n"
      "Output: one JSON line per elapsed second, then a summary line (each rank\n"
      "prints its own, with its \"rank\").\n"
      "Exit: 0 ok, 1 CUDA or profile error, 2 bad arguments,\n"
      "3 CUDA_ERROR_OUT_OF_MEMORY.\n"
      "Without a GPU: LD_LIBRARY_PATH=build/simgpu (simulated driver).\n");
}

absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args) {
  Options opt;
  CliArgs cli(args, {"--per-thread-stream", "--quiet", "--list-models", "--help", "-h"},
              {"--model", "--seconds", "--iterations", "--device", "--sync", "--models-dir",
               "--driver", "--host-gap-us", "--host-threads", "--ranks", "--devices",
               "--gradient-mib", "--checkpoint", "--checkpoint-every-s"});
  for (;;) {
    absl::StatusOr<std::optional<CliArg>> next = cli.Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    const std::string& arg = (*next)->name;
    const std::string& value = (*next)->value;
    if (arg == "--per-thread-stream") {
      opt.per_thread_stream = true;
    } else if (arg == "--quiet") {
      opt.quiet = true;
    } else if (arg == "--list-models") {
      opt.list_models = true;
    } else if (arg == "--help" || arg == "-h") {
      opt.help = true;
    } else if (arg == "--model") {
      if (value.empty()) return BadValue(arg, value, "empty");
      opt.model = value;
    } else if (arg == "--seconds") {
      std::optional<double> s = ParseFiniteDouble(value);
      if (!s || *s <= 0 || *s > 1e7) {
        return BadValue(arg, value, "must be a number of seconds in (0, 1e7]");
      }
      opt.seconds = *s;
    } else if (arg == "--iterations") {
      std::optional<int64_t> n = ParseInt64(value);
      if (!n || *n < 1 || *n > 1000000000000) {
        return BadValue(arg, value, "must be a positive integer");
      }
      opt.iterations = *n;
    } else if (arg == "--device") {
      std::optional<int64_t> d = ParseInt64(value);
      if (!d || *d < 0 || *d > 1023) {
        return BadValue(arg, value, "must be a device ordinal 0..1023");
      }
      opt.device = static_cast<int>(*d);
      opt.device_given = true;
    } else if (arg == "--ranks" || arg == "--devices") {
      std::optional<int64_t> n = ParseInt64(value);
      if (!n || *n < 1 || *n > kMaxRanks) {
        return BadValue(arg, value, absl::StrCat("must be a count of GPUs 1..", kMaxRanks));
      }
      (arg == "--ranks" ? opt.ranks : opt.devices) = static_cast<int>(*n);
    } else if (arg == "--gradient-mib") {
      std::optional<double> mib = ParseFiniteDouble(value);
      if (!mib || *mib <= 0 || *mib > 1024.0 * 1024) {
        return BadValue(arg, value, "must be a positive number of MiB, at most 1048576");
      }
      opt.gradient_mib = *mib;
    } else if (arg == "--sync") {
      if (value == "ctx") {
        opt.sync = SyncMode::kContext;
      } else if (value == "stream") {
        opt.sync = SyncMode::kStreams;
      } else if (value == "kernel") {
        opt.sync = SyncMode::kKernel;
      } else {
        return BadValue(arg, value, "must be 'ctx', 'stream' or 'kernel'");
      }
    } else if (arg == "--host-gap-us") {
      std::optional<double> us = ParseFiniteDouble(value);
      if (!us || *us < 0 || *us > kMaxHostGapUs) {
        return BadValue(arg, value, "must be microseconds in [0, 1e7]");
      }
      opt.host_gap_us = *us;
    } else if (arg == "--host-threads") {
      std::optional<int64_t> n = ParseInt64(value);
      if (!n || *n < 0 || *n > kMaxHostThreads) {
        return BadValue(arg, value,
                        absl::StrCat("must be a count of threads 0..", kMaxHostThreads));
      }
      opt.host_threads = static_cast<int>(*n);
    } else if (arg == "--checkpoint") {
      if (value.empty()) return BadValue(arg, value, "empty");
      const fs::path dir = fs::path(value).parent_path();
      if (!dir.empty() && !IsDir(dir.string())) {
        return BadValue(arg, value, absl::StrCat(dir.string(), " is not a directory"));
      }
      opt.checkpoint = value;
    } else if (arg == "--checkpoint-every-s") {
      std::optional<double> s = ParseFiniteDouble(value);
      if (!s || *s <= 0 || *s > 1e7) {
        return BadValue(arg, value, "must be a number of seconds in (0, 1e7]");
      }
      opt.checkpoint_every_s = *s;
    } else if (arg == "--models-dir") {
      if (!IsDir(value)) return BadValue(arg, value, "not a directory");
      opt.models_dir = value;
    } else if (arg == "--driver") {
      if (value.empty()) return BadValue(arg, value, "empty");
      opt.library = value;
    }
  }
  if (opt.help || opt.list_models) return opt;
  if (opt.model.empty()) {
    return absl::InvalidArgumentError("--model is required (see --list-models)");
  }
  if (opt.seconds && opt.iterations) {
    return absl::InvalidArgumentError("--seconds and --iterations are mutually exclusive");
  }
  if (opt.ranks > 1 && opt.devices > 1) {
    return absl::InvalidArgumentError(
        "--ranks and --devices are mutually exclusive (processes with one GPU each, or one "
        "process with several)");
  }
  if (!opt.checkpoint.empty() && !opt.iterations) {
    return absl::InvalidArgumentError(
        "--checkpoint needs --iterations: a job that resumes needs to know its length");
  }
  if (!opt.checkpoint.empty() && (opt.ranks > 1 || opt.devices > 1)) {
    return absl::InvalidArgumentError(kCheckpointIsForOneProcess);
  }
  if (opt.checkpoint_every_s && opt.checkpoint.empty()) {
    return absl::InvalidArgumentError("--checkpoint-every-s needs --checkpoint FILE");
  }
  if (opt.devices > 1 && opt.device_given) {
    return absl::InvalidArgumentError("--devices uses GPUs 0..N-1: leave out --device");
  }
  return opt;
}

std::vector<std::string> ModelDirCandidates(const std::string& flag_dir, const char* env_dir,
                                            const std::string& exe_path,
                                            const std::string& source_dir) {
  if (!flag_dir.empty()) return {flag_dir};
  if (env_dir != nullptr && env_dir[0] != '\0') return {env_dir};
  std::vector<std::string> dirs;
  if (!exe_path.empty()) {
    // build/bench/iashim-fakejob -> <repo>/bench/data/models
    fs::path p = fs::path(exe_path).parent_path() / ".." / ".." / "bench" / "data" / "models";
    dirs.push_back(p.lexically_normal().string());
  }
  if (!source_dir.empty()) {
    std::string d =
        (fs::path(source_dir) / "bench" / "data" / "models").lexically_normal().string();
    // In an in-tree build both defaults are the same directory.
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  return dirs;
}

absl::StatusOr<std::string> ResolveModelPath(const std::string& model,
                                             const std::vector<std::string>& dirs) {
  if (model.find('/') != std::string::npos || absl::EndsWith(model, ".model")) {
    std::error_code ec;
    if (!fs::is_regular_file(model, ec)) {
      return absl::NotFoundError(absl::StrCat("--model ", model, ": no such profile file"));
    }
    return model;
  }
  for (const std::string& dir : dirs) {
    fs::path p = fs::path(dir) / (model + ".model");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return absl::NotFoundError(absl::StrCat(
      "--model ", model, ": no ", model, ".model in ",
      dirs.empty() ? "(no directory)" : absl::StrJoin(dirs, ", "), " (see --list-models)"));
}

absl::StatusOr<std::vector<std::string>> ListModelPaths(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (!IsDir(dir)) continue;
    std::vector<std::string> paths;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".model") paths.push_back(e.path().string());
    }
    if (ec) {
      return absl::UnavailableError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }
  return absl::NotFoundError(absl::StrCat("no models directory found (looked in ",
                                          dirs.empty() ? "nothing" : absl::StrJoin(dirs, ", "),
                                          "); use --models-dir or IASHIM_MODELS_DIR"));
}

}  // namespace iashim::fakejob
