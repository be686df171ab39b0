#include "coordinator/cli/status_format.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "common/wire/wire_string.h"
#include "absl/strings/str_format.h"
#include "common/text/text.h"
#include "coordinator/cli/json_writer.h"
#include "flatbuffers/flatbuffers.h"

namespace iashim::cli {
namespace {

// Every string read from the wire, as-is for JSON (the writer escapes it).

// For the table: a control character from the wire must not move the cursor
// or recolour the user's terminal.
std::string Printable(const flatbuffers::String* s) {
  std::string out = wire::StringOf(s);
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = '?';
  }
  return out;
}

bool IsGuaranteed(const wire::JobState& job) {
  return job.priority() != wire::Priority::Opportunistic;
}

// A guaranteed gang sharing a GPU with guaranteed jobs, neither held for the
// other (JobState.beside_guaranteed).
bool BesideGuaranteed(const wire::JobState& job) {
  return job.beside_guaranteed() != nullptr && job.beside_guaranteed()->size() > 0;
}

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  return absl::StrFormat("%.0f%%", fraction * 100.0);
}

// A slowdown (the recent one, or the run's so far) as "+8.5%", "+25%!" when
// a guaranteed job is past its target, "-" unknown.
std::string FormatSlowdown(const wire::JobState& job, double s) {
  if (!std::isfinite(s) || s < 0) return "-";
  std::string out =
      s < 0.1 ? absl::StrFormat("+%.1f%%", s * 100.0) : absl::StrFormat("+%.0f%%", s * 100.0);
  // The one thing a reader scans for: a protected job slowed past its limit.
  if (IsGuaranteed(job) && job.slowdown_target() > 0 && s > job.slowdown_target()) out += '!';
  return out;
}

// Where the solo baseline came from: "alone", "probe", "saved"; "probing"
// while a solo probe holds the job's co-runners; "-" none yet (so no
// slowdown, and no protection). The words are the schema's enum, lowercased.
std::string BaselineWord(const wire::JobState& job) {
  if (job.baseline_source() == wire::BaselineSource::None) return job.probing() ? "probing" : "-";
  return absl::AsciiStrToLower(wire::EnumNameBaselineSource(job.baseline_source()));
}

std::string FormatTarget(double target) {
  if (!std::isfinite(target) || target <= 0) return "-";
  return absl::StrFormat("%g%%", target * 100.0);
}

// The job's target, and in brackets the lower one its GPU's loop holds it
// to while its run is repaid: "10% (5.4%)".
std::string FormatTargets(const wire::JobState& job) {
  const std::string own = FormatTarget(job.slowdown_target());
  const double loop = job.loop_target();
  if (!std::isfinite(loop) || loop < 0 || !(loop < job.slowdown_target() - 1e-6)) return own;
  return absl::StrFormat("%s (%.2g%%)", own, loop * 100.0);
}

enum class Align { kLeft, kRight };

struct Column {
  std::string_view title;
  Align align;
};

constexpr Column kColumns[] = {
    {"JOB", Align::kLeft},         {"PID", Align::kRight},      {"PRIO", Align::kLeft},
    {"SHARE", Align::kRight},      {"SLOWDOWN", Align::kRight}, {"RUN", Align::kRight},
    {"BASELINE", Align::kLeft},    {"TARGET", Align::kRight},
    {"KERN/S", Align::kRight},     {"BUSY", Align::kRight},     {"J/ITER", Align::kRight},
    {"ENERGY-J", Align::kRight},   {"MEM/QUOTA", Align::kRight},
    {"BUDGET-AGE", Align::kRight}, {"CONNECTED", Align::kLeft},
};
constexpr size_t kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);

using Row = std::vector<std::string>;

// A batch system's ids, when the job has them, e.g. "slurm 1234.0.0"
// (system job.step.task; no ".task" without a task id); else "".
std::string BatchNote(const wire::JobState& job) {
  const wire::BatchJob* b = job.batch();
  if (b == nullptr || b->system() == nullptr || b->system()->size() == 0) return "";
  std::string note = Printable(b->system()) + " " + Printable(b->job());
  if (b->step() != nullptr && b->step()->size() > 0) note += "." + Printable(b->step());
  if (b->task() >= 0) note += "." + std::to_string(b->task());
  return note;
}

// A gang's GPU indexes, "0,1,2,3"; "" for a one-GPU job.
std::string GangGpus(const wire::JobState& job) {
  if (job.gpus() == nullptr || job.gpus()->size() < 2) return "";
  std::string out;
  for (const int32_t g : *job.gpus()) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

// Iterations per second from an iteration time (0 = unknown: "-").
std::string FormatIterationRate(uint64_t iteration_ns) {
  if (iteration_ns == 0) return "-";
  return absl::StrFormat("%.2f it/s", 1e9 / static_cast<double>(iteration_ns));
}

// One indented line per rank of a gang, under its row. The gang runs at its
// slowest rank's speed: every rank iterates as fast, and the others wait for
// it in collectives, so the slowest is the one that waits least (by iteration
// time when no rank's waiting is known), and it is marked.
std::string RankLines(const wire::JobState& job) {
  if (job.ranks() == nullptr || job.ranks()->size() == 0) return "";
  uint64_t slowest = 0;
  double least_waiting = 2;
  double most_waiting = -1;
  for (const wire::RankState* r : *job.ranks()) {
    if (r == nullptr || !r->connected()) continue;
    slowest = std::max(slowest, r->iteration_ns());
    if (r->waiting() >= 0) {
      least_waiting = std::min(least_waiting, r->waiting());
      most_waiting = std::max(most_waiting, r->waiting());
    }
  }
  // Ranks that all wait alike (within a point) have no straggler to name by
  // waiting: then by iteration time, as without waiting times.
  const bool by_waiting = most_waiting - least_waiting > 0.01;
  const auto is_slowest = [&](const wire::RankState& r) {
    if (by_waiting) return r.waiting() >= 0 && r.waiting() <= least_waiting + 0.005;
    return slowest > 0 && r.iteration_ns() == slowest;
  };
  std::string out;
  for (const wire::RankState* r : *job.ranks()) {
    if (r == nullptr) continue;
    const std::string waiting =
        r->connected() && r->waiting() >= 0 ? absl::StrFormat("  waits %.0f%%", 100 * r->waiting())
                                            : "";
    out += absl::StrFormat("      rank %d  pid %d  gpu %s  %s  %s kern/s%s%s\n", r->rank(), r->pid(),
                           r->gpu() >= 0 ? std::to_string(r->gpu()) : "-",
                           FormatIterationRate(r->iteration_ns()), FormatRate(r->kernels_per_s()),
                           waiting,
                           !r->connected()   ? "  disconnected"
                           : is_slowest(*r) ? "  slowest"
                                            : "");
  }
  return out;
}

// For a gang held under a full share: the one GPU whose control loop sets
// its pace on all of them, and whom that loop defends, e.g. "      share set
// by the loop on node2:3, for train-a". "" otherwise (a one-GPU job's loop
// and its guaranteed jobs are the GPU's own, listed with it).
std::string ShareSourceLine(const wire::JobState& job) {
  const wire::ShareSource* source = job.share_set_by();
  if (source == nullptr || job.gpus() == nullptr || job.gpus()->size() < 2) return "";
  std::string defends;
  if (source->defends() != nullptr) {
    for (const flatbuffers::String* g : *source->defends()) {
      defends += (defends.empty() ? "" : ", ") + Printable(g);
    }
  }
  return absl::StrFormat("      share set by the loop on %s:%d%s\n", Printable(source->host()),
                         source->gpu(), defends.empty() ? "" : ", for " + defends);
}

Row JobRow(const wire::JobState& job) {
  const std::string quota =
      job.mem_limit_bytes() == 0 ? std::string("-") : FormatCompactBytes(job.mem_limit_bytes());
  const std::string batch = BatchNote(job);
  const std::string gang = GangGpus(job);
  return {
      Printable(job.job()) + (gang.empty() ? "" : " [gpu " + gang + "]") +
          (batch.empty() ? "" : " [" + batch + "]"),
      std::to_string(job.pid()),
      BesideGuaranteed(job) ? "g+g"
      : IsGuaranteed(job)   ? "guar"
                            : "opp",
      std::isfinite(job.share()) ? absl::StrFormat("%.2f", job.share()) : "-",
      FormatSlowdown(job, job.slowdown()),
      FormatSlowdown(job, job.run_slowdown()),
      BaselineWord(job),
      IsGuaranteed(job) ? FormatTargets(job) : "-",
      FormatRate(job.kernels_per_s()),
      Percent(job.busy()),
      FormatJoules(job.energy_per_iteration_j()),
      FormatJoules(job.energy_j()),
      FormatCompactBytes(job.mem_bytes()) + "/" + quota,
      FormatAgeMs(job.budget_age_ms()),
      job.connected() ? "yes"
      : job.lost()    ? "lost"
                      : "no",
  };
}

std::string RenderRow(const Row& row, const std::vector<size_t>& widths) {
  std::string line = "  ";
  for (size_t i = 0; i < kColumnCount; ++i) {
    const std::string& cell = row[i];
    const size_t pad = widths[i] > cell.size() ? widths[i] - cell.size() : 0;
    const bool last = i + 1 == kColumnCount;
    if (kColumns[i].align == Align::kRight) {
      line.append(pad, ' ');
      line += cell;
    } else {
      line += cell;
      if (!last) line.append(pad, ' ');
    }
    if (!last) line += "  ";
  }
  return line + "\n";
}

uint64_t MemoryUsed(const wire::GpuState& gpu) {
  // The coordinator's sum counts a gang's rank on every GPU of the gang.
  if (gpu.memory_used_bytes() >= 0) return uint64_t(gpu.memory_used_bytes());
  uint64_t sum = 0;
  if (gpu.jobs() != nullptr) {
    for (const wire::JobState* job : *gpu.jobs()) {
      if (job != nullptr) sum += job->mem_bytes();
    }
  }
  return sum;
}

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The wire marks an unknown figure with a negative value.
bool Known(double value) { return std::isfinite(value) && value >= 0; }

// Strings from the wire as a JSON array; [] when the vector is absent.
void StringArray(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* strings,
                 JsonWriter& w) {
  w.BeginArray();
  if (strings != nullptr) {
    for (const flatbuffers::String* s : *strings) w.String(wire::StringOf(s));
  }
  w.EndArray();
}

// A figure the wire may mark unknown: null in JSON.
void KnownOrNull(double value, JsonWriter& w) {
  if (Known(value)) {
    w.Double(value);
  } else {
    w.Null();
  }
}

void WriteJob(const wire::JobState& job, JsonWriter& w) {
  w.BeginObject();
  w.Key("job").String(wire::StringOf(job.job()));
  w.Key("pid").Int(job.pid());
  w.Key("host").String(wire::StringOf(job.host()));
  w.Key("command").String(wire::StringOf(job.command()));
  w.Key("priority").String(IsGuaranteed(job) ? "guaranteed" : "opportunistic");
  w.Key("share").Double(job.share());
  w.Key("max_inflight").Uint(job.max_inflight());
  w.Key("slowdown");
  if (std::isfinite(job.slowdown()) && job.slowdown() >= 0) {
    w.Double(job.slowdown());
  } else {
    w.Null();
  }
  w.Key("run_slowdown");
  KnownOrNull(job.run_slowdown(), w);
  w.Key("slowdown_target").Double(job.slowdown_target());
  w.Key("loop_target");
  KnownOrNull(job.loop_target(), w);
  w.Key("kernels_per_s").Double(job.kernels_per_s());
  w.Key("busy").Double(job.busy());
  w.Key("iteration_ns").Uint(job.iteration_ns());
  w.Key("baseline_iteration_ns").Uint(job.baseline_iteration_ns());
  w.Key("baseline_source");
  if (job.baseline_source() == wire::BaselineSource::None) {
    w.Null();
  } else {
    w.String(absl::AsciiStrToLower(wire::EnumNameBaselineSource(job.baseline_source())));
  }
  w.Key("baseline_cpu_contended").Bool(job.baseline_cpu_contended());
  w.Key("probing").Bool(job.probing());
  w.Key("cpu_wait");
  KnownOrNull(job.cpu_wait(), w);
  w.Key("mem_bytes").Uint(job.mem_bytes());
  w.Key("mem_limit_bytes").Uint(job.mem_limit_bytes());
  w.Key("budget_age_ms").Uint(job.budget_age_ms());
  w.Key("held_launches_per_s").Double(job.held_launches_per_s());
  w.Key("energy_j");
  KnownOrNull(job.energy_j(), w);
  w.Key("energy_per_iteration_j");
  KnownOrNull(job.energy_per_iteration_j(), w);
  w.Key("connected").Bool(job.connected());
  w.Key("lost").Bool(job.lost());
  // Only for a guaranteed gang beside guaranteed jobs: those jobs.
  if (BesideGuaranteed(job)) {
    w.Key("beside_guaranteed");
    StringArray(job.beside_guaranteed(), w);
  }
  // Only for a job a control loop holds under a full share: which loop.
  if (const wire::ShareSource* source = job.share_set_by(); source != nullptr) {
    w.Key("share_set_by").BeginObject();
    w.Key("host").String(wire::StringOf(source->host()));
    w.Key("gpu").Int(source->gpu());
    w.Key("defends");
    StringArray(source->defends(), w);
    w.EndObject();
  }
  // Only for a gang: its GPUs and its processes by rank.
  if (job.gpus() != nullptr && job.gpus()->size() > 0) {
    w.Key("gpus").BeginArray();
    for (const int32_t g : *job.gpus()) w.Int(g);
    w.EndArray();
  }
  if (job.ranks() != nullptr && job.ranks()->size() > 0) {
    w.Key("ranks").BeginArray();
    for (const wire::RankState* r : *job.ranks()) {
      if (r == nullptr) continue;
      w.BeginObject();
      w.Key("rank").Int(r->rank());
      w.Key("pid").Int(r->pid());
      w.Key("gpu").Int(r->gpu());
      w.Key("connected").Bool(r->connected());
      w.Key("iteration_ns").Uint(r->iteration_ns());
      w.Key("waiting");
      if (r->waiting() >= 0) {
        w.Double(r->waiting());
      } else {
        w.Null();
      }
      w.Key("iterations_per_s");
      if (r->iteration_ns() > 0) {
        w.Double(1e9 / static_cast<double>(r->iteration_ns()));
      } else {
        w.Null();
      }
      w.Key("kernels_per_s").Double(r->kernels_per_s());
      w.EndObject();
    }
    w.EndArray();
  }
  // Only for jobs a batch system started (PlaceRequest.batch).
  if (const wire::BatchJob* b = job.batch();
      b != nullptr && b->system() != nullptr && b->system()->size() > 0) {
    w.Key("batch").BeginObject();
    w.Key("system").String(wire::StringOf(b->system()));
    w.Key("job").String(wire::StringOf(b->job()));
    w.Key("step").String(wire::StringOf(b->step()));
    w.Key("task").Int(b->task());
    w.EndObject();
  }
  w.EndObject();
}

// A reservation's cell: "guar resnet50 16G (28s left)"; "whole GPU" when it
// asked no memory quota; a gang's "gang 0,1" with its GPUs.
std::string ReservationNote(const wire::Reservation& r) {
  std::string note = r.priority() == wire::Priority::Opportunistic ? "opp" : "guar";
  if (r.kind() != nullptr && r.kind()->size() > 0) note += " " + Printable(r.kind());
  note += " " + (r.mem_bytes() == 0 ? std::string("whole GPU") : FormatCompactBytes(r.mem_bytes()));
  if (r.gpus() != nullptr && r.gpus()->size() > 1) {
    std::string gang;
    for (const int32_t g : *r.gpus()) gang += (gang.empty() ? "" : ",") + std::to_string(g);
    note += " gang " + gang;
  }
  return note + " (" + FormatUptime(std::max(r.expires_in_s(), 0.0)) + " left)";
}

// The line under a GPU's header for the reservations that hold it; "" when none.
std::string ReservationLine(const wire::StateSnapshot& snapshot, const wire::GpuState& gpu) {
  if (snapshot.reservations() == nullptr) return "";
  std::string notes;
  size_t count = 0;
  for (const wire::Reservation* r : *snapshot.reservations()) {
    if (r == nullptr || r->gpus() == nullptr ||
        wire::StringOf(r->host()) != wire::StringOf(gpu.host())) {
      continue;
    }
    if (std::find(r->gpus()->begin(), r->gpus()->end(), gpu.id()) == r->gpus()->end()) continue;
    notes += (notes.empty() ? "" : "; ") + ReservationNote(*r);
    ++count;
  }
  if (count == 0) return "";
  return absl::StrFormat("  reserved for %s on its way (a dry run's): %s\n",
                         Plural(count, "job", "jobs"), notes);
}

void WriteReservation(const wire::Reservation& r, JsonWriter& w) {
  w.BeginObject();
  w.Key("host").String(wire::StringOf(r.host()));
  w.Key("gpus").BeginArray();
  if (r.gpus() != nullptr) {
    for (const int32_t g : *r.gpus()) w.Int(g);
  }
  w.EndArray();
  w.Key("priority")
      .String(r.priority() == wire::Priority::Opportunistic ? "opportunistic" : "guaranteed");
  w.Key("kind").String(wire::StringOf(r.kind()));
  w.Key("mem_bytes").Uint(r.mem_bytes());
  w.Key("expires_in_s").Double(r.expires_in_s());
  w.EndObject();
}

// The control loop's last decision on a GPU, as a line under it; empty where
// it does not run.
std::string LoopLine(const wire::GpuState& gpu) {
  const wire::LoopState* loop = gpu.loop();
  if (loop == nullptr) return "";
  std::string line = "  loop: " + Printable(loop->action());
  if (Known(loop->worst_ratio())) {
    absl::StrAppendFormat(&line, "; worst guaranteed job at %.2f of its target",
                          loop->worst_ratio());
  }
  if (Known(loop->calm_below()) && Known(loop->aim())) {
    absl::StrAppendFormat(&line, " (raises after a calm run under %.2f, aiming at %.2f)",
                          loop->calm_below(), loop->aim());
  }
  return line + "\n";
}

void WriteLoop(const wire::GpuState& gpu, JsonWriter& w) {
  const wire::LoopState* loop = gpu.loop();
  if (loop == nullptr) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("action").String(wire::StringOf(loop->action()));
  w.Key("worst_ratio");
  KnownOrNull(loop->worst_ratio(), w);
  w.Key("calm_below");
  KnownOrNull(loop->calm_below(), w);
  w.Key("aim");
  KnownOrNull(loop->aim(), w);
  w.EndObject();
}

void WriteGpu(const wire::GpuState& gpu, JsonWriter& w) {
  w.BeginObject();
  w.Key("id").Int(gpu.id());
  w.Key("host").String(wire::StringOf(gpu.host()));
  w.Key("name").String(wire::StringOf(gpu.name()));
  w.Key("uuid").String(wire::StringOf(gpu.uuid()));
  w.Key("memory_bytes").Uint(gpu.memory_bytes());
  w.Key("memory_used_bytes").Uint(MemoryUsed(gpu));
  w.Key("busy").Double(gpu.busy());
  w.Key("drained").Bool(gpu.drained());
  w.Key("node_lost_s");
  KnownOrNull(gpu.node_lost_s(), w);
  w.Key("power_w");
  KnownOrNull(gpu.power_w(), w);
  w.Key("loop");
  WriteLoop(gpu, w);
  w.Key("jobs").BeginArray();
  if (gpu.jobs() != nullptr) {
    for (const wire::JobState* job : *gpu.jobs()) {
      if (job != nullptr) WriteJob(*job, w);
    }
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string FormatUptime(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  // The coordinator's figure, not ours: keep the conversion below in range.
  if (seconds >= 1e9) return ">30y";
  const uint64_t s = static_cast<uint64_t>(seconds);
  if (s < 60) return absl::StrFormat("%ds", s);
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  if (s < 86400) return absl::StrFormat("%dh%02dm", s / 3600, s % 3600 / 60);
  return absl::StrFormat("%dd%02dh", s / 86400, s % 86400 / 3600);
}

std::string FormatCompactBytes(uint64_t bytes) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (bytes < 1024) return absl::StrFormat("%dB", bytes);
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof kUnits) {
    value /= 1024.0;
    ++unit;
  }
  // Rounding 9.96 to "10.0" would print one digit more than the column
  // expects; switch to no decimals at the rounded value instead.
  if (value < 9.95) return absl::StrFormat("%.1f%c", value, kUnits[unit]);
  return absl::StrFormat("%.0f%c", value, kUnits[unit]);
}

std::string FormatAgeMs(uint64_t ms) {
  if (ms == 0) return "-";
  if (ms < 1000) return absl::StrFormat("%dms", ms);
  if (ms < 60'000) return absl::StrFormat("%.1fs", static_cast<double>(ms) / 1000.0);
  const uint64_t s = ms / 1000;
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, s % 3600 / 60);
}

std::string FormatRate(double per_s) {
  if (!std::isfinite(per_s) || per_s < 0) return "-";
  if (per_s < 10'000) return absl::StrFormat("%.0f", per_s);
  if (per_s < 1e6) return absl::StrFormat("%.1fk", per_s / 1e3);
  return absl::StrFormat("%.1fM", per_s / 1e6);
}

std::string FormatStatusTable(const wire::StateSnapshot& snapshot) {
  const auto* gpus = snapshot.gpus();
  size_t gpu_count = 0, job_count = 0;
  if (gpus != nullptr) {
    for (const wire::GpuState* gpu : *gpus) {
      if (gpu == nullptr) continue;
      ++gpu_count;
      if (gpu->jobs() != nullptr) job_count += gpu->jobs()->size();
    }
  }
  std::string out = absl::StrFormat(
      "coordinator %s  up %s  snapshot %d  %s  %s", Printable(snapshot.coordinator_version()),
      FormatUptime(snapshot.uptime_s()), snapshot.seq(), Plural(gpu_count, "GPU", "GPUs"),
      Plural(job_count, "job", "jobs"));
  if (snapshot.invalid_messages() > 0) {
    out += absl::StrFormat("  %d invalid messages dropped", snapshot.invalid_messages());
  }
  if (snapshot.reservations() != nullptr && snapshot.reservations()->size() > 0) {
    out += "  " + Plural(snapshot.reservations()->size(), "reservation", "reservations");
  }
  out += "\n";
  if (snapshot.state_error() != nullptr && snapshot.state_error()->size() > 0) {
    out += "state NOT SAVED (kept in memory, retried): " + Printable(snapshot.state_error()) + "\n";
  }
  if (gpu_count == 0) return out + "no GPUs known to the coordinator\n";

  // A gang is listed once, under its first GPU; its other GPUs say whose they are.
  std::vector<std::pair<std::string, std::string>> gang_notes;  // "host:index" -> "gang X (under Y)"
  for (const wire::GpuState* gpu : *gpus) {
    if (gpu == nullptr || gpu->jobs() == nullptr) continue;
    for (const wire::JobState* job : *gpu->jobs()) {
      if (job == nullptr || job->gpus() == nullptr) continue;
      for (const int32_t g : *job->gpus()) {
        if (g == gpu->id()) continue;
        gang_notes.emplace_back(
            Printable(gpu->host()) + ":" + std::to_string(g),
            absl::StrFormat("gang %s (listed under %s:%d)", Printable(job->job()),
                            Printable(gpu->host()), gpu->id()));
      }
    }
  }

  // Widths over every GPU's jobs, so the columns line up down the page.
  Row header;
  for (const Column& c : kColumns) header.emplace_back(c.title);
  std::vector<size_t> widths(kColumnCount, 0);
  std::vector<std::vector<Row>> rows_per_gpu;
  const auto widen = [&widths](const Row& row) {
    for (size_t i = 0; i < kColumnCount; ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  widen(header);
  std::vector<std::vector<std::string>> rank_lines_per_gpu;  // parallel to rows_per_gpu
  for (const wire::GpuState* gpu : *gpus) {
    if (gpu == nullptr) continue;
    std::vector<Row>& rows = rows_per_gpu.emplace_back();
    std::vector<std::string>& rank_lines = rank_lines_per_gpu.emplace_back();
    if (gpu->jobs() == nullptr) continue;
    for (const wire::JobState* job : *gpu->jobs()) {
      if (job == nullptr) continue;
      rows.push_back(JobRow(*job));
      rank_lines.push_back(ShareSourceLine(*job) + RankLines(*job));
      widen(rows.back());
    }
  }

  size_t index = 0;
  for (const wire::GpuState* gpu : *gpus) {
    if (gpu == nullptr) continue;
    const std::vector<std::string>& rank_lines = rank_lines_per_gpu[index];
    const std::vector<Row>& rows = rows_per_gpu[index++];
    std::string gangs;
    const std::string here = Printable(gpu->host()) + ":" + std::to_string(gpu->id());
    for (const auto& [where, note] : gang_notes) {
      if (where == here) gangs += "  " + note;
    }
    out += "\n";
    std::string name = Printable(gpu->name());
    const std::string power =
        Known(gpu->power_w()) ? absl::StrFormat("  power %.0f W", gpu->power_w()) : "";
    const std::string lost =
        gpu->node_lost_s() >= 0
            ? absl::StrFormat("  NODE LOST (no shim heard for %.0f s)", gpu->node_lost_s())
            : "";
    out += absl::StrFormat("%s:%d%s%s  busy %s%s  memory %s of %s  %s%s%s%s\n", Printable(gpu->host()),
                           gpu->id(), name.empty() ? "" : " ", name, Percent(gpu->busy()), power,
                           FormatBytes(MemoryUsed(*gpu)), FormatBytes(gpu->memory_bytes()),
                           Plural(rows.size(), "job", "jobs"), gangs,
                           gpu->drained() ? "  DRAINED (no new jobs)" : "", lost);
    out += ReservationLine(snapshot, *gpu);
    out += LoopLine(*gpu);
    if (rows.empty()) continue;
    out += RenderRow(header, widths);
    for (size_t r = 0; r < rows.size(); ++r) {
      out += RenderRow(rows[r], widths);
      out += rank_lines[r];
    }
  }
  return out;
}

std::string FormatLearnedPairs(const wire::StateSnapshot& snapshot) {
  const auto* pairs = snapshot.pairs();
  if (pairs == nullptr || pairs->size() == 0) {
    return "\nlearned pairs: none yet (no two jobs of known kinds have shared a GPU unthrottled)\n";
  }
  std::string out = absl::StrFormat(
      "\nlearned pairs (victim's throughput next to the aggressor, of its solo speed)\n"
      "%-20s %-20s %6s %9s %10s %8s %12s\n",
      "victim", "aggressor", "obs", "measured", "predicted", "factors", "uncertainty");
  for (const wire::LearnedPair* p : *pairs) {
    if (p == nullptr) continue;
    out += absl::StrFormat("%-20s %-20s %6d %9.3f %10.3f %8.3f %12.3f\n", Printable(p->victim()),
                           Printable(p->aggressor()), p->observations(), p->measured(),
                           p->predicted(), p->model_only(), p->uncertainty());
  }
  return out;
}

std::string FormatRecentEvents(const wire::StateSnapshot& snapshot, const std::string& job) {
  const std::string whose = job.empty() ? "" : " of " + job;  // a name the parser checked
  const auto* events = snapshot.events();
  if (events == nullptr || events->size() == 0) {
    return absl::StrFormat("\nrecent events%s: none (the coordinator keeps only its latest)\n",
                           whose);
  }
  std::string out = absl::StrFormat("\nrecent events%s (UTC, oldest first)\n", whose);
  for (const wire::LoggedEvent* e : *events) {
    if (e == nullptr) continue;
    out += absl::StrFormat("%s %s\n", FormatUtcTime(int64_t(e->unix_ns())), Printable(e->text()));
  }
  return out;
}

std::string FormatStatusJson(const wire::StateSnapshot& snapshot) {
  JsonWriter w(2);
  w.BeginObject();
  w.Key("seq").Uint(snapshot.seq());
  w.Key("unix_ns").Uint(snapshot.unix_ns());
  w.Key("uptime_s").Double(snapshot.uptime_s());
  w.Key("coordinator_version").String(wire::StringOf(snapshot.coordinator_version()));
  w.Key("invalid_messages").Uint(snapshot.invalid_messages());
  w.Key("state_error").String(wire::StringOf(snapshot.state_error()));
  w.Key("gpus").BeginArray();
  if (snapshot.gpus() != nullptr) {
    for (const wire::GpuState* gpu : *snapshot.gpus()) {
      if (gpu != nullptr) WriteGpu(*gpu, w);
    }
  }
  w.EndArray();
  // Placed dry runs holding GPUs for their jobs (empty from a coordinator
  // from before reservations).
  w.Key("reservations").BeginArray();
  if (snapshot.reservations() != nullptr) {
    for (const wire::Reservation* r : *snapshot.reservations()) {
      if (r != nullptr) WriteReservation(*r, w);
    }
  }
  w.EndArray();
  if (snapshot.pairs() != nullptr) {
    w.Key("pairs").BeginArray();
    for (const wire::LearnedPair* p : *snapshot.pairs()) {
      if (p == nullptr) continue;
      w.BeginObject();
      w.Key("victim").String(wire::StringOf(p->victim()));
      w.Key("aggressor").String(wire::StringOf(p->aggressor()));
      w.Key("observations").Uint(p->observations());
      w.Key("measured").Double(p->measured());
      w.Key("predicted").Double(p->predicted());
      w.Key("model_only").Double(p->model_only());
      w.Key("uncertainty").Double(p->uncertainty());
      w.EndObject();
    }
    w.EndArray();
  }
  if (snapshot.events() != nullptr) {
    w.Key("events").BeginArray();
    for (const wire::LoggedEvent* e : *snapshot.events()) {
      if (e == nullptr) continue;
      w.BeginObject();
      w.Key("unix_ns").Uint(e->unix_ns());
      w.Key("time").String(FormatUtcTime(int64_t(e->unix_ns())));
      w.Key("jobs");
      StringArray(e->jobs(), w);
      w.Key("text").String(wire::StringOf(e->text()));
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace iashim::cli
