// Runs a program as a child with a given environment and collects its
// stdout, stderr and exit status: how the tests drive the built `iashim`.
#ifndef IASHIM_TESTS_COORDINATOR_CLI_CHILD_PROCESS_H_
#define IASHIM_TESTS_COORDINATOR_CLI_CHILD_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/coordinator/client/fake_coordinator.h"

namespace iashim::cli::testing {

// The protocol client's fakes (a coordinator in a thread, reply builders) are
// the command line tests' too: testing::FakeCoordinator names them here.
using namespace ::iashim::client::testing;

// Changes to this process's environment for the child; nullopt unsets.
using EnvEdits = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct ChildResult {
  int exit_code = -1;  // 128 + signal when killed by one
  bool timed_out = false;
  std::string out;
  std::string err;
};

class Child {
 public:
  Child(const std::vector<std::string>& argv, const EnvEdits& env);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // Reads both streams to their end and reaps the child; past `timeout_s` it
  // is killed (and timed_out set).
  ChildResult Wait(double timeout_s);

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
};

// Start + Wait.
ChildResult RunChild(const std::vector<std::string>& argv, const EnvEdits& env,
                     double timeout_s = 20);

}  // namespace iashim::cli::testing

#endif  // IASHIM_TESTS_COORDINATOR_CLI_CHILD_PROCESS_H_
