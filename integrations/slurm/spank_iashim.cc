// The iashim SPANK plugin: Slurm's side of `iashim run`.
//
// A site loads it with one plugstack.conf line (README: "Running on Slurm").
// Users then add --iashim[=guaranteed|opportunistic], --iashim-mem=SIZE,
// --iashim-kind=MODEL and --iashim-movable (with --requeue: the job resumes
// from a checkpoint, so the coordinator may move it) to sbatch, srun or
// salloc. Where each callback runs:
//
//   sbatch/srun/salloc   init, init_post_opt: check the options; put them in
//                        the job's control environment (SPANK_IASHIM*), where
//                        the project's job_submit.lua reads them
//   slurmstepd           user_init: open the release channel and, for a step
//                        with several tasks on the node, the page its one gang
//                        placement is shared through (before tasks fork)
//   each task, pre-exec  task_init: ask the coordinator, set the environment
//   slurmstepd           task_exit, exit: release the task's placement (a
//                        step's gang: when the step ends)
//
// Everything with logic in it lives in the files beside this one; this file
// only talks to Slurm.
#include <dlfcn.h>
#include <libgen.h>
#include <slurm/slurm.h>
// spank.h declares the callbacks outside its own extern "C" block; they must
// have C linkage, since Slurm's loader looks them up by name.
extern "C" {
#include <slurm/spank.h>
}
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/security/client_keys.h"
#include "coordinator/client/coordinator_client.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/release_messages.h"
#include "coordinator/client/request_options.h"
#include "coordinator/client/self_info.h"
#include "integrations/slurm/device_access.h"
#include "integrations/slurm/job_request.h"
#include "integrations/slurm/plugin_config.h"
#include "integrations/slurm/release_channel.h"
#include "integrations/slurm/step_gang.h"
#include "integrations/slurm/task_setup.h"

#define IASHIM_EXPORT extern "C" __attribute__((visibility("default")))

// SPANK_PLUGIN(iashim, 1), spelled out: in C++ a namespace-scope const has
// internal linkage, and Slurm's loader looks these symbols up.
IASHIM_EXPORT const char plugin_name[] = "iashim";
IASHIM_EXPORT const char plugin_type[] = "spank";
IASHIM_EXPORT const unsigned int plugin_version = SLURM_VERSION_NUMBER;
IASHIM_EXPORT const unsigned int spank_plugin_version = 1;

namespace {

using iashim::slurm::PluginConfig;
using iashim::slurm::ReleaseChannel;
using iashim::slurm::ReleaseEntry;
using iashim::slurm::UserOptions;

// One Slurm process, one job step: plain statics are what SPANK plugins use.
std::optional<PluginConfig> g_config;
UserOptions g_user;
ReleaseChannel g_channel;
iashim::slurm::StepGang g_step_gang;
uint32_t g_local_tasks = 1;  // tasks of this step on this node (slurmstepd)

// An option's value, parsed: kept, or refused with the parser's message
// (srun/sbatch print it and refuse the job).
template <typename T, typename Keep>
int TakeOption(const absl::StatusOr<T>& parsed, Keep keep) {
  if (!parsed.ok()) {
    slurm_error("iashim: %s", std::string(parsed.status().message()).c_str());
    return -1;
  }
  keep(*parsed);
  return 0;
}

int OnIashim(int, const char* optarg, int) {
  return TakeOption(iashim::slurm::ParsePriorityOption(optarg), [](iashim::client::Priority p) {
    g_user.enabled = true;
    g_user.priority = p;
  });
}

int OnMem(int, const char* optarg, int) {
  return TakeOption(iashim::slurm::ParseMemOption(optarg),
                    [](uint64_t bytes) { g_user.mem_bytes = bytes; });
}

int OnKind(int, const char* optarg, int) {
  return TakeOption(iashim::slurm::ParseKindOption(optarg),
                    [](const std::string& kind) { g_user.kind = kind; });
}

int OnMovable(int, const char*, int) {
  g_user.movable = true;
  return 0;
}

struct spank_option g_options[] = {
    {const_cast<char*>("iashim"), const_cast<char*>("guaranteed|opportunistic"),
     const_cast<char*>("Share GPUs under iashim: the coordinator chooses the GPU and sets its "
                       "budget (default: guaranteed)"),
     2, 0, &OnIashim},
    {const_cast<char*>("iashim-mem"), const_cast<char*>("SIZE"),
     const_cast<char*>("With --iashim: GPU memory quota per task (16GiB, 512MiB, ...)"), 1, 0,
     &OnMem},
    {const_cast<char*>("iashim-kind"), const_cast<char*>("MODEL"),
     const_cast<char*>("With --iashim: the model, so interference is predicted before it runs"), 1,
     0, &OnKind},
    {const_cast<char*>("iashim-movable"), nullptr,
     const_cast<char*>("With --iashim and --requeue: the job resumes from a checkpoint, so the "
                       "coordinator may requeue it onto a GPU that empties"),
     0, 0, &OnMovable},
};

std::string StepName(uint32_t step) {
  switch (step) {
    case SLURM_BATCH_SCRIPT: return "batch";
    case SLURM_EXTERN_CONT: return "extern";
    case SLURM_INTERACTIVE_STEP: return "interactive";
    default: return std::to_string(step);
  }
}

// libiashim.so: the configured path, else beside the installed plugin, else
// where a build tree puts it (build/integrations/slurm -> build/libiashim).
std::string FindShim(const PluginConfig& config) {
  if (!config.shim.empty()) return config.shim;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&FindShim), &info) == 0 || info.dli_fname == nullptr) return "";
  std::vector<char> path(info.dli_fname, info.dli_fname + std::strlen(info.dli_fname) + 1);
  const std::string dir = dirname(path.data());
  for (const std::string& candidate :
       {dir + "/libiashim.so", dir + "/../libiashim.so", dir + "/../../libiashim/libiashim.so"}) {
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      char resolved[PATH_MAX];
      return realpath(candidate.c_str(), resolved) ? resolved : candidate;
    }
  }
  return "";
}

// The job's environment as Slurm set it for this task. spank_getenv copies,
// so the values live here until the next lookup of the same name.
class TaskEnvironment {
 public:
  explicit TaskEnvironment(spank_t sp) : sp_(sp) {}
  const char* Get(const char* name) {
    std::vector<char>& buf = values_[name];
    buf.assign(4096, '\0');
    if (spank_getenv(sp_, name, buf.data(), static_cast<int>(buf.size())) != ESPANK_SUCCESS) {
      return nullptr;
    }
    return buf.data();
  }

 private:
  spank_t sp_;
  std::map<std::string, std::vector<char>> values_;
};

iashim::client::RequestResult Ask(const PluginConfig& config, const iashim::security::ClientKeys& keys,
                               std::span<const uint8_t> request, iashim::wire::Payload expected) {
  iashim::client::RequestSpec spec;
  spec.endpoint = config.coordinator;
  spec.request = request;
  spec.expected = expected;
  spec.timeout_s = config.timeout_s;
  spec.keys = keys;
  return iashim::client::Request(spec);
}

bool ResolveKeys(const PluginConfig& config, iashim::security::ClientKeys* keys, std::string* error) {
  return iashim::security::ResolveClientKeys(config.coordinator, config.coordinator_key, "", keys,
                                             error);
}

// Gives a task's placement back; the shim's Goodbye usually did already.
void Release(const ReleaseEntry& entry) {
  iashim::security::ClientKeys keys;
  std::string error;
  if (!ResolveKeys(*g_config, &keys, &error)) return;
  const std::vector<uint8_t> request = iashim::client::EncodeReleaseRequest(entry.job, entry.token);
  const iashim::client::RequestResult result =
      Ask(*g_config, keys, request, iashim::wire::Payload::ReleaseReply);
  if (result.status != iashim::client::RequestStatus::kOk) {
    slurm_info("iashim: could not release %s: %s", entry.job.c_str(), result.detail.c_str());
    return;
  }
  const iashim::client::Release release = iashim::client::DecodeRelease(*result.reply.envelope());
  slurm_debug("iashim: release %s: %s", entry.job.c_str(),
              release.released ? "released" : release.message.c_str());
}

void Say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

IASHIM_EXPORT int slurm_spank_init(spank_t sp, int ac, char** av) {
  std::vector<std::string_view> args(av, av + ac);
  absl::StatusOr<PluginConfig> config = iashim::slurm::ParsePluginArgs(args);
  if (!config.ok()) {
    slurm_error("iashim: %s", std::string(config.status().message()).c_str());
    return -1;
  }
  g_config = *std::move(config);
  for (struct spank_option& option : g_options) {
    if (spank_option_register(sp, &option) != ESPANK_SUCCESS) {
      slurm_error("iashim: could not register --%s", option.name);
      return -1;
    }
  }
  return 0;
}

IASHIM_EXPORT int slurm_spank_init_post_opt(spank_t sp, int, char**) {
  if (spank_remote(sp) || !g_user.enabled) return 0;
  // For job_submit.lua, which sees the job's control environment
  // (job_desc.spank_job_env) but not the SPANK options themselves.
  spank_job_control_setenv(sp, "IASHIM", std::string(iashim::client::PriorityName(g_user.priority)).c_str(), 1);
  if (g_user.mem_bytes != 0) {
    spank_job_control_setenv(sp, "IASHIM_MEM", std::to_string(g_user.mem_bytes).c_str(), 1);
  }
  if (!g_user.kind.empty()) spank_job_control_setenv(sp, "IASHIM_KIND", g_user.kind.c_str(), 1);
  return 0;
}

IASHIM_EXPORT int slurm_spank_user_init(spank_t sp, int, char**) {
  if (!spank_remote(sp) || !g_user.enabled) return 0;
  if (!g_channel.Open()) {
    slurm_error("iashim: no release channel (%s): placements are released only by the shims",
                std::strerror(errno));
  }
  spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &g_local_tasks);
  if (g_local_tasks > 1 && !g_step_gang.Open()) {
    slurm_error("iashim: no page to share the step's gang through (%s): each task asks alone",
                std::strerror(errno));
  }
  return 0;
}

IASHIM_EXPORT int slurm_spank_task_init(spank_t sp, int, char**) {
  if (!spank_remote(sp) || !g_user.enabled || !g_config) return 0;
  uint32_t job_id = 0, step_id = 0, local_tasks = 1;
  int task_id = 0;
  int argc = 0;
  char** argv = nullptr;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_TASK_ID, &task_id) != ESPANK_SUCCESS) {
    Say("iashim: Slurm gave no job, step or task id; running as Slurm placed it");
    return 0;
  }
  spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_tasks);
  // A step on several nodes numbers its tasks across them; the local ids
  // repeat on every node and would name two tasks alike.
  uint32_t global_task = 0, node_id = 0, nodes = 1;
  const bool global_known = spank_get_item(sp, S_TASK_GLOBAL_ID, &global_task) == ESPANK_SUCCESS;
  spank_get_item(sp, S_JOB_NODEID, &node_id);
  spank_get_item(sp, S_JOB_NNODES, &nodes);
  std::vector<std::string> command;
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS) {
    for (int i = 0; i < argc && argv != nullptr; ++i) command.emplace_back(argv[i]);
  }

  TaskEnvironment env(sp);
  iashim::slurm::TaskInputs in;
  in.config = &*g_config;
  std::string error;
  if (!ResolveKeys(*g_config, &in.keys, &error)) {
    Say("iashim: " + error + "; running as Slurm placed it");
    return 0;
  }
  in.user = g_user;
  in.task = {job_id, StepName(step_id), task_id,
             global_known ? static_cast<int>(global_task) : -1, static_cast<int>(node_id),
             static_cast<int>(std::max<uint32_t>(nodes, 1))};
  in.local_task_count = static_cast<int>(local_tasks);
  const char* node = env.Get("SLURMD_NODENAME");
  in.host = node != nullptr && *node != '\0' ? std::string(node) : iashim::client::HostName();
  in.command = iashim::client::JoinCommand(command, iashim::client::kMaxCommandBytes);
  in.pid = getpid();
  in.gpus = iashim::slurm::FindUsableGpus(g_config->device_prefix, &iashim::slurm::ProbeDeviceFile);
  in.libraries.shim = FindShim(*g_config);
  in.env = [&env](const char* name) { return env.Get(name); };
  in.step_gang = &g_step_gang;
  if (in.libraries.shim.empty()) {
    Say("iashim: libiashim.so not found (set shim= in plugstack.conf); running as Slurm placed it");
    return 0;
  }

  iashim::slurm::TaskSeams seams;
  seams.ask = [&in](std::span<const uint8_t> request) {
    return Ask(*in.config, in.keys, request, iashim::wire::Payload::PlaceReply);
  };
  seams.sleep = [](double s) {
    struct timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  };
  seams.now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  seams.say = &Say;
  const iashim::slurm::TaskOutcome outcome = iashim::slurm::SetUpTask(in, seams);
  using Kind = iashim::slurm::TaskOutcome::Kind;
  if (outcome.kind == Kind::kRefused) return -1;
  for (const iashim::client::EnvChange& change : outcome.env) {
    if (change.value) {
      spank_setenv(sp, change.name.c_str(), change.value->c_str(), 1);
    } else {
      spank_unsetenv(sp, change.name.c_str());
    }
  }
  if (outcome.kind == Kind::kManaged) {
    slurm_info("iashim: task %s on GPU %d", outcome.job.c_str(), outcome.gpu);
    g_channel.Send({task_id, outcome.job, outcome.token});
  }
  return 0;
}

IASHIM_EXPORT int slurm_spank_task_exit(spank_t sp, int, char**) {
  if (!spank_remote(sp) || !g_user.enabled || !g_config) return 0;
  // A step's gang is its tasks' together: it goes when the step ends.
  if (g_local_tasks > 1 && g_step_gang.is_open()) return 0;
  int task_id = 0;
  if (spank_get_item(sp, S_TASK_ID, &task_id) != ESPANK_SUCCESS) return 0;
  g_channel.Collect();
  ReleaseEntry entry;
  if (g_channel.Take(task_id, &entry)) Release(entry);
  return 0;
}

IASHIM_EXPORT int slurm_spank_exit(spank_t sp, int, char**) {
  if (!spank_remote(sp) || !g_user.enabled || !g_config) return 0;
  g_channel.Collect();
  std::set<std::string> released;  // a gang's tasks all name it
  for (const ReleaseEntry& entry : g_channel.TakeAll()) {
    if (released.insert(entry.job).second) Release(entry);
  }
  return 0;
}
