#include "common/security/client_keys.h"

#include <gtest/gtest.h>

#include "common/security/curve.h"
#include "common/security/key_writer.h"
#include "tests/common/security/temp_dir.h"

namespace iashim::security {
namespace {

constexpr char kKey[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

TEST(ClientKeys, LoopbackNeedsNoKey) {
  ClientKeys keys;
  std::string error;
  ASSERT_TRUE(ResolveClientKeys("tcp://127.0.0.1:5555", "", "", &keys, &error)) << error;
  EXPECT_FALSE(keys.curve());
  ASSERT_TRUE(ResolveClientKeys("ipc:///tmp/x", "", "", &keys, &error)) << error;
  EXPECT_FALSE(keys.curve());
}

TEST(ClientKeys, BeyondLoopbackWithoutAKeyIsRefused) {
  ClientKeys keys;
  std::string error;
  EXPECT_FALSE(ResolveClientKeys("tcp://10.0.0.7:5555", "", "", &keys, &error));
  EXPECT_EQ(error,
            "the coordinator tcp://10.0.0.7:5555 is beyond this machine, and plain text is "
            "allowed to loopback only: give its public key with --coordinator-key FILE or "
            "IASHIM_COORDINATOR_KEY (the coordinator.key written by `iashim keygen` on its host)");
}

TEST(ClientKeys, AKeyMeansCurveWithAThrowawayPair) {
  ClientKeys keys;
  std::string error;
  ASSERT_TRUE(ResolveClientKeys("tcp://10.0.0.7:5555", kKey, "", &keys, &error)) << error;
  EXPECT_TRUE(keys.curve());
  EXPECT_EQ(keys.server_public, kKey);
  EXPECT_TRUE(keys.client_public.empty());
  EXPECT_TRUE(keys.client_secret.empty());
}

TEST(ClientKeys, ABadKeyIsNamed) {
  ClientKeys keys;
  std::string error;
  EXPECT_FALSE(ResolveClientKeys("tcp://127.0.0.1:5555", "/nonexistent/coordinator.key", "",
                                 &keys, &error));
  EXPECT_EQ(error,
            "the coordinator's public key: cannot read the key file /nonexistent/coordinator.key: "
            "No such file or directory");
}

TEST(ClientKeys, AdminKeyNeedsTheCoordinatorsKey) {
  ClientKeys keys;
  std::string error;
  EXPECT_FALSE(ResolveClientKeys("tcp://127.0.0.1:5555", "", "/some/admin.key_secret", &keys,
                                 &error));
  EXPECT_NE(error.find("--admin-key needs the coordinator's public key"), std::string::npos)
      << error;
}

TEST(ClientKeys, AdminKeyIsTheClientsPair) {
  TempDir dir;
  KeyPair admin;
  WrittenKeyPair written;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&admin, &error)) << error;
  ASSERT_TRUE(WriteKeyPair(dir.path(), "admin.key", admin, false, &written, &error)) << error;
  ClientKeys keys;
  ASSERT_TRUE(ResolveClientKeys("tcp://10.0.0.7:5555", kKey, written.secret_path, &keys, &error))
      << error;
  EXPECT_EQ(keys.client_secret, admin.secret_key);
  EXPECT_EQ(keys.client_public, admin.public_key);
  // The public half is not a secret key file.
  EXPECT_FALSE(ResolveClientKeys("tcp://10.0.0.7:5555", kKey, written.public_path, &keys, &error));
  EXPECT_NE(error.find("--admin-key: the secret key file"), std::string::npos) << error;
}

}  // namespace
}  // namespace iashim::security
