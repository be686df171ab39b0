// The environment `iashim run` gives the job: the shim preloaded and the
// IASHIM_* settings (README.md's table) that carry the placement into it.
//
// Pure: computed as a list of changes from the request, the placement and
// the current environment, and applied by run_command.cc just before exec,
// so what a job sees is unit-tested without starting one.
#ifndef IASHIM_COORDINATOR_CLIENT_JOB_ENVIRONMENT_H_
#define IASHIM_COORDINATOR_CLIENT_JOB_ENVIRONMENT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/client/library_paths.h"
#include "coordinator/client/place_messages.h"
#include "coordinator/client/request_options.h"

namespace iashim::client {

struct EnvChange {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
};

struct JobLibraries {
  std::string shim;        // absolute path of libiashim.so
  std::string simgpu_dir;  // empty: the real driver
};

// The coordinator placed the job. `warnings` gets a line for any value of the
// reply that was not used (it is still the coordinator's job; the shim gets
// the corrected budget from it once connected).
std::vector<EnvChange> ManagedEnvironment(const JobRequest& request, const Placement& placement,
                                          const JobLibraries& libraries, const EnvLookup& env,
                                          std::vector<std::string>* warnings);

// No coordinator answered: the job runs under the shim anyway, so --mem is
// still enforced, but reports to no one.
std::vector<EnvChange> UnmanagedEnvironment(const JobRequest& request,
                                            const JobLibraries& libraries, const EnvLookup& env);

// `item` first, then the entries of `existing` (a list separated by any of
// `separators`) other than `item`, joined with ':'. Null or empty `existing`:
// just `item`.
std::string PrependToList(std::string_view item, const char* existing, std::string_view separators);

}  // namespace iashim::client

#endif  // IASHIM_COORDINATOR_CLIENT_JOB_ENVIRONMENT_H_
