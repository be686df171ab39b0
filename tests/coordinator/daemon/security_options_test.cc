// The coordinator's exposure rules (plain text on loopback only, --metrics
// beyond loopback only when acknowledged) and its key files.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/security/curve.h"
#include "common/security/key_writer.h"
#include "coordinator/daemon/daemon_options.h"
#include "coordinator/daemon/server_keys.h"

namespace iashim::daemon {
namespace {

std::string Error(const std::vector<std::string>& args) {
  absl::StatusOr<DaemonOptions> o = ParseDaemonOptions(args);
  return o.ok() ? "" : std::string(o.status().message());
}

TEST(DaemonSecurityOptions, LoopbackNeedsNoKey) {
  for (const char* listen : {"tcp://127.0.0.1:5555", "tcp://[::1]:5555", "tcp://localhost:1",
                             "ipc:///tmp/iashim-router"}) {
    EXPECT_EQ(Error({"--listen", listen, "--pub", "ipc:///tmp/p"}), "") << listen;
  }
}

TEST(DaemonSecurityOptions, BeyondLoopbackWithoutAKeyIsRefused) {
  EXPECT_EQ(Error({"--listen", "tcp://0.0.0.0:5555"}),
            "--listen tcp://0.0.0.0:5555 is reachable from other machines, and without CurveZMQ "
            "it would be plain text: run `iashim keygen` and pass --curve-secret-key with the "
            "coordinator.key_secret it writes (or use 127.0.0.1, [::1], localhost or ipc://)");
  EXPECT_NE(Error({"--pub", "tcp://*:5556"}).find("--pub tcp://*:5556 is reachable"),
            std::string::npos);
  EXPECT_NE(Error({"--listen", "tcp://eth0:5555"}), "");
  EXPECT_NE(Error({"--listen", "tcp://10.1.2.3:5555"}), "");
}

TEST(DaemonSecurityOptions, AKeyAllowsAnyAddress) {
  absl::StatusOr<DaemonOptions> o =
      ParseDaemonOptions({"--listen", "tcp://0.0.0.0:5555", "--pub=tcp://*:5556",
                          "--curve-secret-key", "/etc/iashim/coordinator.key_secret",
                          "--admin-key", "/etc/iashim/a.key", "--admin-key=/etc/iashim/b.key"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->curve_secret_key_file, "/etc/iashim/coordinator.key_secret");
  EXPECT_EQ(o->admin_key_files,
            (std::vector<std::string>{"/etc/iashim/a.key", "/etc/iashim/b.key"}));
}

TEST(DaemonSecurityOptions, AdminKeyNeedsCurve) {
  EXPECT_EQ(Error({"--admin-key", "/etc/iashim/admin.key"}),
            "--admin-key needs --curve-secret-key: the admin is recognised by their CURVE key");
  EXPECT_EQ(Error({"--curve-secret-key", ""}), "--curve-secret-key must not be empty");
}

TEST(DaemonSecurityOptions, RemoteMetricsMustBeAcknowledged) {
  EXPECT_EQ(Error({"--metrics", "127.0.0.1:9400"}), "");
  EXPECT_EQ(Error({"--metrics", "[::1]:9400"}), "");
  EXPECT_EQ(Error({"--metrics", "0.0.0.0:9400"}),
            "--metrics 0.0.0.0:9400 is reachable from other machines over plain, "
            "unauthenticated HTTP (read-only: job names, GPUs, shares, slowdowns); add "
            "--metrics-allow-remote to accept that");
  EXPECT_EQ(Error({"--metrics", "0.0.0.0:9400", "--metrics-allow-remote"}), "");
  // A key does not make plain HTTP private.
  EXPECT_NE(Error({"--metrics", "10.0.0.1:9400", "--curve-secret-key", "/k"}), "");
}

class ServerKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = std::filesystem::temp_directory_path() / "iashim-server-keys-XXXXXX";
    dir_ = mkdtemp(pattern.data());
    std::string error;
    ASSERT_TRUE(security::NewKeyPair(&coordinator_, &error)) << error;
    ASSERT_TRUE(security::NewKeyPair(&admin_, &error)) << error;
    ASSERT_TRUE(security::WriteKeyPair(dir_, "coordinator.key", coordinator_, false,
                                       &coordinator_files_, &error))
        << error;
    ASSERT_TRUE(
        security::WriteKeyPair(dir_, "admin.key", admin_, false, &admin_files_, &error))
        << error;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  security::KeyPair coordinator_, admin_;
  security::WrittenKeyPair coordinator_files_, admin_files_;
};

TEST_F(ServerKeysTest, NoKeyNoCurve) {
  absl::StatusOr<ServerKeys> keys = LoadServerKeys(DaemonOptions{});
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_FALSE(keys->curve());
}

TEST_F(ServerKeysTest, LoadsTheSecretAndDerivesThePublicKey) {
  DaemonOptions options;
  options.curve_secret_key_file = coordinator_files_.secret_path;
  options.admin_key_files = {admin_files_.public_path};
  absl::StatusOr<ServerKeys> keys = LoadServerKeys(options);
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_TRUE(keys->curve());
  EXPECT_EQ(keys->secret_key, coordinator_.secret_key);
  EXPECT_EQ(keys->public_key, coordinator_.public_key);
  EXPECT_EQ(keys->admin_public_keys, std::vector<std::string>{admin_.public_key});
}

TEST_F(ServerKeysTest, RefusesASecretOthersCanRead) {
  chmod(coordinator_files_.secret_path.c_str(), 0640);
  DaemonOptions options;
  options.curve_secret_key_file = coordinator_files_.secret_path;
  absl::StatusOr<ServerKeys> keys = LoadServerKeys(options);
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.status().message(),
            "--curve-secret-key: the secret key file " + coordinator_files_.secret_path +
                " may be read or changed by others (mode 0640); it must be private to its "
                "owner: chmod 600 " + coordinator_files_.secret_path);
}

TEST_F(ServerKeysTest, NamesABadAdminKey) {
  DaemonOptions options;
  options.curve_secret_key_file = coordinator_files_.secret_path;
  const std::string bad = dir_ + "/bad.key";
  std::ofstream(bad) << "not a key\n";
  options.admin_key_files = {admin_files_.public_path, bad};
  absl::StatusOr<ServerKeys> keys = LoadServerKeys(options);
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.status().message(),
            "--admin-key: the key file " + bad +
                " does not hold one Z85 key: it has 9 characters, a key has 40 (make one with "
                "`iashim keygen`)");
}

}  // namespace
}  // namespace iashim::daemon
