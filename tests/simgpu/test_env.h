// Gives each test process its own simulated GPUs: a private SIMGPU_NAMESPACE,
// whose shared-memory files are removed when the process exits.
#ifndef IASHIM_TESTS_SIMGPU_TEST_ENV_H_
#define IASHIM_TESTS_SIMGPU_TEST_ENV_H_

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace iashim_test {

inline std::string UniqueNamespace(const char* tag) {
  return std::string("iashim-test-") + tag + "-" + std::to_string(::getpid());
}

// Removes /dev/shm/<ns>-gpu0..15 and the namespace's collective groups.
inline void RemoveSimulatedDevices(const std::string& ns) {
  for (int i = 0; i < 16; ++i) {
    const std::string path = "/dev/shm/" + ns + "-gpu" + std::to_string(i);
    ::unlink(path.c_str());
  }
  ::unlink(("/dev/shm/" + ns + "-collectives").c_str());
}

}  // namespace iashim_test

#endif  // IASHIM_TESTS_SIMGPU_TEST_ENV_H_
