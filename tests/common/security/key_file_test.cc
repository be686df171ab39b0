#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/security/curve.h"
#include "common/security/key_file.h"
#include "common/security/key_writer.h"
#include "tests/common/security/temp_dir.h"

namespace iashim::security {
namespace {

using std::filesystem::perms;

constexpr char kKey[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
constexpr perms kOwnerOnly = perms::owner_read | perms::owner_write;
constexpr perms kWorldReadable = kOwnerOnly | perms::group_read | perms::others_read;

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(KeyFile, ReadsWhatTheWriterWrote) {
  TempDir dir;
  KeyPair pair;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&pair, &error)) << error;
  WrittenKeyPair written;
  ASSERT_TRUE(WriteKeyPair(dir.path() + "/new/sub", "coordinator.key", pair, false, &written,
                           &error))
      << error;
  EXPECT_EQ(written.public_path, dir.path() + "/new/sub/coordinator.key");
  EXPECT_EQ(written.secret_path, dir.path() + "/new/sub/coordinator.key_secret");
  EXPECT_EQ(ModeOf(dir.path() + "/new/sub"), 0700u);
  EXPECT_EQ(ModeOf(written.secret_path), 0600u);
  EXPECT_EQ(ModeOf(written.public_path), 0644u);

  std::string public_key, secret_key, derived;
  ASSERT_TRUE(ReadPublicKeyFile(written.public_path, &public_key, &error)) << error;
  ASSERT_TRUE(ReadSecretKeyFile(written.secret_path, &secret_key, &error)) << error;
  EXPECT_EQ(public_key, pair.public_key);
  EXPECT_EQ(secret_key, pair.secret_key);
  ASSERT_TRUE(PublicKeyOf(secret_key, &derived, &error)) << error;
  EXPECT_EQ(derived, public_key);
}

TEST(KeyFile, WriterRefusesToOverwriteWithoutReplace) {
  TempDir dir;
  KeyPair first, second;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&first, &error) && NewKeyPair(&second, &error)) << error;
  WrittenKeyPair written;
  ASSERT_TRUE(WriteKeyPair(dir.path(), "admin.key", first, false, &written, &error)) << error;
  EXPECT_FALSE(WriteKeyPair(dir.path(), "admin.key", second, false, &written, &error));
  EXPECT_EQ(error, dir.path() + "/admin.key already exists (pass --force to replace it)");
  std::string key;
  ASSERT_TRUE(ReadSecretKeyFile(dir.path() + "/admin.key_secret", &key, &error)) << error;
  EXPECT_EQ(key, first.secret_key);

  ASSERT_TRUE(WriteKeyPair(dir.path(), "admin.key", second, true, &written, &error)) << error;
  ASSERT_TRUE(ReadSecretKeyFile(written.secret_path, &key, &error)) << error;
  EXPECT_EQ(key, second.secret_key);
  ASSERT_TRUE(ReadPublicKeyFile(written.public_path, &key, &error)) << error;
  EXPECT_EQ(key, second.public_key);
  EXPECT_EQ(ModeOf(written.secret_path), 0600u);
}

TEST(KeyFile, WriterRefusesAHalfPairWithoutReplace) {
  TempDir dir;
  const std::string stray = dir.Write("coordinator.key_secret", "x", kOwnerOnly);
  KeyPair pair;
  std::string error;
  ASSERT_TRUE(NewKeyPair(&pair, &error)) << error;
  WrittenKeyPair written;
  EXPECT_FALSE(WriteKeyPair(dir.path(), "coordinator.key", pair, false, &written, &error));
  EXPECT_EQ(error, stray + " already exists (pass --force to replace it)");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/coordinator.key"));
}

TEST(KeyFile, SecretReadableByOthersIsRefused) {
  TempDir dir;
  const std::string file = dir.Write("k_secret", std::string(kKey) + "\n", kWorldReadable);
  std::string key, error;
  EXPECT_FALSE(ReadSecretKeyFile(file, &key, &error));
  EXPECT_EQ(error, "the secret key file " + file +
                       " may be read or changed by others (mode 0644); it must be private to its "
                       "owner: chmod 600 " + file);
  std::filesystem::permissions(file, kOwnerOnly | perms::group_write);
  EXPECT_FALSE(ReadSecretKeyFile(file, &key, &error));
  std::filesystem::permissions(file, kOwnerOnly);
  EXPECT_TRUE(ReadSecretKeyFile(file, &key, &error)) << error;
  // A public key file may be read by anyone.
  std::filesystem::permissions(file, kWorldReadable);
  EXPECT_TRUE(ReadPublicKeyFile(file, &key, &error)) << error;
}

TEST(KeyFile, DamagedFilesAreNamed) {
  TempDir dir;
  std::string key, error;
  const std::string short_key = dir.Write("short", std::string(kKey).substr(1) + "\n", kOwnerOnly);
  EXPECT_FALSE(ReadPublicKeyFile(short_key, &key, &error));
  EXPECT_EQ(error, "the key file " + short_key +
                       " does not hold one Z85 key: it has 39 characters, a key has 40 (make one "
                       "with `iashim keygen`)");
  const std::string two_lines = dir.Write("two", std::string(kKey) + "\n\n", kOwnerOnly);
  EXPECT_FALSE(ReadPublicKeyFile(two_lines, &key, &error));
  const std::string crlf = dir.Write("crlf", std::string(kKey) + "\r\n", kOwnerOnly);
  EXPECT_TRUE(ReadPublicKeyFile(crlf, &key, &error)) << error;
  const std::string bare = dir.Write("bare", kKey, kOwnerOnly);
  EXPECT_TRUE(ReadPublicKeyFile(bare, &key, &error)) << error;
  EXPECT_EQ(key, kKey);
  const std::string big = dir.Write("big", std::string(1000, 'a'), kOwnerOnly);
  EXPECT_FALSE(ReadPublicKeyFile(big, &key, &error));
  EXPECT_NE(error.find("larger than a key file"), std::string::npos) << error;

  EXPECT_FALSE(ReadPublicKeyFile(dir.path() + "/missing", &key, &error));
  EXPECT_EQ(error, "cannot read the key file " + dir.path() +
                       "/missing: No such file or directory");
  EXPECT_FALSE(ReadSecretKeyFile(dir.path(), &key, &error));
  EXPECT_EQ(error, "the key file " + dir.path() + " is not a regular file");
}

TEST(KeyFile, ResolvesAKeyOrAPath) {
  TempDir dir;
  std::string key, error;
  ASSERT_TRUE(ResolvePublicKey(kKey, &key, &error)) << error;
  EXPECT_EQ(key, kKey);
  const std::string file = dir.Write("coordinator.key", std::string(kKey) + "\n", kWorldReadable);
  key.clear();
  ASSERT_TRUE(ResolvePublicKey(file, &key, &error)) << error;
  EXPECT_EQ(key, kKey);
  EXPECT_FALSE(ResolvePublicKey(std::string(kKey).substr(2), &key, &error));
  EXPECT_NE(error.find("cannot read the key file"), std::string::npos) << error;
  EXPECT_FALSE(ResolvePublicKey("", &key, &error));
}

TEST(KeyFile, AFileWhoseNameLooksLikeAKeyIsRead) {
  TempDir dir;
  // Relative, 40 characters, all of them Z85: still a file when one is there.
  const std::string name = "k" + std::string(39, 'a');
  const std::string file = dir.Write(name, std::string(kKey) + "\n", kWorldReadable);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  std::string key, error;
  ASSERT_TRUE(ResolvePublicKey(name, &key, &error)) << error;
  EXPECT_EQ(key, kKey);
  ASSERT_EQ(chdir("/"), 0);
}

}  // namespace
}  // namespace iashim::security
