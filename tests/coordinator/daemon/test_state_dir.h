// A state directory of each test's own (prefix, pid and the test's name),
// emptied before the test; the fixture removes it afterwards.
#ifndef IASHIM_TESTS_COORDINATOR_DAEMON_TEST_STATE_DIR_H_
#define IASHIM_TESTS_COORDINATOR_DAEMON_TEST_STATE_DIR_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace iashim::daemon {

inline std::filesystem::path FreshTestStateDir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + "-" + std::to_string(getpid()) + "-" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace iashim::daemon

#endif  // IASHIM_TESTS_COORDINATOR_DAEMON_TEST_STATE_DIR_H_
