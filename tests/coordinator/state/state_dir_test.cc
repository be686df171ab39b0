// Opening a --state-dir that cannot be used fails with a message naming the
// path and the reason; one that can is created private and locked.
#include "coordinator/state/state_dir.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "coordinator/state/state_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/state/test_util.h"

namespace iashim::state {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteBytes;

TEST(StateDirTest, CreatesMissingDirectoriesPrivate) {
  TempDir tmp;
  const std::string path = tmp.File("a/b/state");
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(path + "//");
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->dir(), path);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 077, 0u);
}

TEST(StateDirTest, ARegularFileIsRefused) {
  TempDir tmp;
  const std::string path = tmp.File("file");
  WriteBytes(path, "not a directory");
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(path);
  EXPECT_TRUE(absl::IsFailedPrecondition(store.status())) << store.status();
  EXPECT_THAT(store.status().message(), AllOf(HasSubstr(path), HasSubstr("not a directory")));
}

TEST(StateDirTest, AFileInThePathIsRefused) {
  TempDir tmp;
  WriteBytes(tmp.File("file"), "");
  const std::string path = tmp.File("file/state");
  absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(path);
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), AllOf(HasSubstr(path), HasSubstr("Not a directory")));
}

TEST(StateDirTest, ASecondOpenWhileLockedIsRefused) {
  TempDir tmp;
  absl::StatusOr<std::unique_ptr<StateStore>> first = StateStore::Open(tmp.path());
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<StateStore>> second = StateStore::Open(tmp.path());
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_THAT(second.status().message(), AllOf(HasSubstr(tmp.path()), HasSubstr("in use")));
  first->reset();
  EXPECT_TRUE(StateStore::Open(tmp.path()).ok());  // released on close
}

// Opens `path` in a child process that is not root (root ignores permission
// bits): as nobody when the test runs as root. Returns the child's status
// code and message, or nullopt when privileges could not be dropped.
std::optional<std::pair<absl::StatusCode, std::string>> OpenAsNonRoot(const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
    absl::StatusOr<std::unique_ptr<StateStore>> store = StateStore::Open(path);
    const std::string out = std::to_string(static_cast<int>(store.status().code())) + " " +
                            std::string(store.status().message());
    _exit(write(fds[1], out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 11);
  }
  close(fds[1]);
  std::string got;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) got.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  const size_t space = got.find(' ');
  return std::make_pair(static_cast<absl::StatusCode>(std::stoi(got.substr(0, space))),
                        got.substr(space + 1));
}

TEST(StateDirTest, AnUnwritableDirectoryIsRefusedWithTheReason) {
  TempDir tmp;
  const std::string path = tmp.File("readonly");
  ASSERT_EQ(mkdir(path.c_str(), 0555), 0);
  ASSERT_EQ(chmod(tmp.path().c_str(), 0755), 0);  // reachable by the child
  auto result = OpenAsNonRoot(path);
  if (!result) GTEST_SKIP() << "cannot run as a non-root user here";
  EXPECT_EQ(result->first, absl::StatusCode::kPermissionDenied) << result->second;
  EXPECT_THAT(result->second,
              AllOf(HasSubstr(path), HasSubstr("not writable"), HasSubstr("Permission denied")));
}

TEST(StateDirTest, AnUncreatableDirectoryIsRefusedWithTheReason) {
  TempDir tmp;
  const std::string parent = tmp.File("readonly");
  ASSERT_EQ(mkdir(parent.c_str(), 0555), 0);
  ASSERT_EQ(chmod(tmp.path().c_str(), 0755), 0);
  const std::string path = parent + "/state";
  auto result = OpenAsNonRoot(path);
  if (!result) GTEST_SKIP() << "cannot run as a non-root user here";
  EXPECT_EQ(result->first, absl::StatusCode::kPermissionDenied) << result->second;
  EXPECT_THAT(result->second,
              AllOf(HasSubstr(path), HasSubstr("cannot create"), HasSubstr("Permission denied")));
}

}  // namespace
}  // namespace iashim::state
