#include "coordinator/daemon/place_request.h"

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/text/names.h"
#include "coordinator/daemon/wire_convert.h"

namespace iashim::daemon {
namespace {

// allowed_gpus names GPUs of one node; no node has more.
constexpr size_t kMaxAllowedGpus = 256;

// A batch system's name: 1-32 of [a-z0-9_-] ("slurm").
bool ValidBatchSystem(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

// A batch job or step id: 1-64 printable ASCII characters, no spaces.
bool ValidBatchId(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (const char c : s) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

std::string_view View(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : s->string_view();
}

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// The request's batch ids (no batch table: none).
absl::Status ReadBatch(const wire::BatchJob* b, BatchIds* ids) {
  if (b == nullptr) return absl::OkStatus();
  if (!ValidBatchSystem(View(b->system()))) {
    return Invalid("batch.system must be 1-32 of a-z, 0-9, _ and -");
  }
  if (!ValidBatchId(View(b->job()))) {
    return Invalid("batch.job must be 1-64 printable ASCII characters without spaces");
  }
  if (!ValidBatchId(View(b->step()))) {
    return Invalid("batch.step must be 1-64 printable ASCII characters without spaces");
  }
  if (b->task() < -1 || b->task() > 65535) return Invalid("batch.task must be -1..65535");
  ids->system = std::string(View(b->system()));
  ids->job = std::string(View(b->job()));
  ids->step = std::string(View(b->step()));
  ids->task = b->task();
  return absl::OkStatus();
}

// allowed_gpus: the GPUs of `host` the job may use (e.g. what a batch system
// gave it); empty = any GPU of host.
absl::Status ReadAllowedGpus(const wire::PlaceRequest& req, PlaceAsk* ask) {
  const auto* a = req.allowed_gpus();
  if (a == nullptr || a->size() == 0) return absl::OkStatus();
  if (a->size() > kMaxAllowedGpus) return Invalid("allowed_gpus has more than 256 entries");
  for (const int32_t index : *a) {
    if (index < 0 || index > 255) {
      return Invalid(absl::StrFormat("allowed_gpus entry %d is not a GPU index (0..255)", index));
    }
    ask->allowed_gpus.insert(index);
  }
  if (ask->host.empty()) return Invalid("allowed_gpus needs host: the node whose GPUs they index");
  if (ask->allowed_gpus.size() < static_cast<size_t>(ask->gpus)) {
    return Invalid(absl::StrFormat("gpus asks for %d GPUs; allowed_gpus names only %d", ask->gpus,
                                   ask->allowed_gpus.size()));
  }
  if (ask->gpu >= 0 && !ask->allowed_gpus.contains(ask->gpu)) {
    return Invalid(absl::StrFormat("gpu %d is not in allowed_gpus", ask->gpu));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PlaceAsk> ReadPlaceRequest(const wire::PlaceRequest& req) {
  PlaceAsk ask;
  ask.job = Clean(req.job(), 128);
  ask.command = Clean(req.command(), 256);
  ask.kind = req.kind() ? req.kind()->str() : "";
  ask.host = Clean(req.host(), 255);
  ask.priority = FromWire(req.priority());
  ask.mem_bytes = req.mem_bytes();
  ask.gpu = req.gpu();
  ask.slowdown_target = req.slowdown_target();
  ask.dry_run = req.dry_run();
  ask.guaranteed_gres = req.guaranteed_gres();
  ask.movable = req.movable();
  if (!ask.kind.empty() && !ValidModelKind(ask.kind)) {
    return Invalid("kind must be 1-128 printable ASCII characters");
  }
  if (!ask.job.empty() && !ValidJobName(ask.job)) {
    return Invalid("job id must be 1-128 of letters, digits and ._-:/@+");
  }
  if (!(ask.slowdown_target >= 0 && ask.slowdown_target <= 10)) {
    return Invalid("slowdown_target must be in [0, 10]");
  }
  if (ask.gpu < -1 || ask.gpu > 255) return Invalid("gpu must be -1 or 0..255");
  ask.gpus = req.gpus();
  if (ask.gpus < 1 || ask.gpus > kMaxGangGpus) {
    return Invalid(absl::StrFormat("gpus must be 1..%d (the GPUs the job uses at once), not %d",
                                   kMaxGangGpus, ask.gpus));
  }
  if (ask.gpus > 1 && ask.gpu >= 0) {
    return Invalid(absl::StrFormat(
        "gpu %d pins one GPU; a gang of %d GPUs cannot be pinned (leave gpu -1; allowed_gpus "
        "limits its choice)",
        ask.gpu, ask.gpus));
  }
  if (absl::Status s = ReadAllowedGpus(req, &ask); !s.ok()) return s;
  if (absl::Status s = ReadBatch(req.batch(), &ask.batch); !s.ok()) return s;
  return ask;
}

}  // namespace iashim::daemon
