// Command-line options of iashim-fakejob and where model profiles are found.
#ifndef IASHIM_BENCH_FAKEJOB_OPTIONS_H_
#define IASHIM_BENCH_FAKEJOB_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/fakejob/training_loop.h"

namespace iashim::fakejob {

inline constexpr double kDefaultSeconds = 10.0;
inline constexpr double kMaxHostGapUs = 1e7;  // 10 s: longer is a typo
inline constexpr int kMaxHostThreads = 256;
inline constexpr double kDefaultCheckpointEveryS = 10.0;
// Ranks would have to agree on where they resume, as they agree on where
// they stop (stop_agreement.h); only one-process jobs are moved.
inline constexpr char kCheckpointIsForOneProcess[] =
    "--checkpoint is for a job of one process on one GPU, not a data-parallel one";

struct Options {
  std::string model;              // name, or a path to a .model file
  std::optional<double> seconds;  // run length; default kDefaultSeconds
  std::optional<int64_t> iterations;
  int device = 0;
  bool device_given = false;  // --device was given (else a rank uses LOCAL_RANK)
  // Data-parallel: --ranks N starts N rank processes, one GPU each, as
  // torchrun does; --devices N drives N GPUs from this process, one rank each.
  int ranks = 1;
  int devices = 1;
  std::optional<double> gradient_mib;  // replaces the profile's gradient_mib
  bool per_thread_stream = false;
  SyncMode sync = SyncMode::kContext;
  std::optional<double> host_gap_us;  // replaces the profile's host gap
  int host_threads = 0;               // threads keeping a CPU busy all run (busy_host_threads.h)
  // checkpoint.h: resume from this file's iterations, and record them there
  // every checkpoint_every_s and at the end (also when stopped by a signal).
  std::string checkpoint;
  std::optional<double> checkpoint_every_s;  // default kDefaultCheckpointEveryS
  bool quiet = false;
  bool list_models = false;
  bool help = false;
  std::string models_dir;                // --models-dir; "" if not given
  std::string library = "libcuda.so.1";  // --driver (tests, other drivers)
};

// Parses argv. A bad option or value gives InvalidArgument with one line
// naming the option and the value (main prints it and exits 2).
absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args);

std::string UsageText();

// Directories searched for <name>.model, in order: --models-dir, else
// $IASHIM_MODELS_DIR, else <exe dir>/../../bench/data/models and
// <source dir>/bench/data/models. Empty inputs are skipped.
std::vector<std::string> ModelDirCandidates(const std::string& flag_dir, const char* env_dir,
                                            const std::string& exe_path,
                                            const std::string& source_dir);

// Resolves --model: a value containing '/' or ending in ".model" is a path;
// otherwise the first <dir>/<name>.model that exists. NotFound lists the
// directories searched.
absl::StatusOr<std::string> ResolveModelPath(const std::string& model,
                                             const std::vector<std::string>& dirs);

// The sorted model names (<name>.model files) in the first existing dir.
absl::StatusOr<std::vector<std::string>> ListModelPaths(const std::vector<std::string>& dirs);

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_OPTIONS_H_
