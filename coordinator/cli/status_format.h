// What `iashim status` prints for a StateSnapshot: a table for people and
// JSON for scripts. Pure (a verified snapshot in, text out), so both formats
// are unit-tested against snapshots built in the test.
#ifndef IASHIM_COORDINATOR_CLI_STATUS_FORMAT_H_
#define IASHIM_COORDINATOR_CLI_STATUS_FORMAT_H_

#include <cstdint>
#include <string>

#include "schemas/telemetry_generated.h"

namespace iashim::cli {

// A title line, then for each GPU a header line (host:id name, busy, memory)
// and its jobs under aligned columns:
// JOB PID PRIO SHARE SLOWDOWN TARGET KERN/S BUSY MEM/QUOTA BUDGET-AGE CONNECTED.
// A GPU that placed dry runs hold for their jobs (StateSnapshot.reservations)
// has one more line under its header, and the title counts them.
std::string FormatStatusTable(const wire::StateSnapshot& snapshot);

// The whole snapshot as one JSON object (indented, with a final newline).
// A slowdown the coordinator does not know (< 0) is null.
std::string FormatStatusJson(const wire::StateSnapshot& snapshot);

// The interference model's learned pairs (`iashim status --pairs`), a table
// after the GPUs'; says so when there are none. The JSON form is FormatStatusJson's
// "pairs" array, present when the snapshot carries them.
std::string FormatLearnedPairs(const wire::StateSnapshot& snapshot);

// The coordinator's recent events (`iashim status --events`), after the
// GPUs' table: one line each, its UTC time then the log's text, oldest first;
// `job` names whose they are in the heading ("" = all). Says so when there
// are none. The JSON form is FormatStatusJson's "events" array.
std::string FormatRecentEvents(const wire::StateSnapshot& snapshot, const std::string& job);

// Cell formats, exposed for tests.
std::string FormatUptime(double seconds);        // "45s", "3m05s", "1h02m", "2d03h"
std::string FormatCompactBytes(uint64_t bytes);  // "512B", "8.0G", "16G"
std::string FormatAgeMs(uint64_t ms);            // "-" (0), "850ms", "1.2s", "3m05s"
std::string FormatRate(double per_s);            // "800", "12.3k", "1.5M"

}  // namespace iashim::cli

#endif  // IASHIM_COORDINATOR_CLI_STATUS_FORMAT_H_
