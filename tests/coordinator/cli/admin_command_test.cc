// `iashim drain`, `undrain` and `priority`: their command lines, the
// AdminRequest they send, how they read the reply, and the built executable
// against a fake coordinator. Also the job token `iashim run` hands the job.
#include <string>
#include <vector>

#include "coordinator/cli/admin_messages.h"
#include "coordinator/cli/cli_options.h"
#include "coordinator/client/job_environment.h"
#include "coordinator/cli/status_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schemas/telemetry_generated.h"
#include "tests/coordinator/cli/child_process.h"
#include "tests/coordinator/client/fake_coordinator.h"

namespace iashim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Bytes;

absl::StatusOr<CliOptions> Parse(std::vector<std::string> args) {
  return ParseCommandLine(args, nullptr);
}

std::string Error(std::vector<std::string> args) {
  absl::StatusOr<CliOptions> options = Parse(std::move(args));
  if (options.ok()) return "(accepted)";
  return std::string(options.status().message());
}

TEST(AdminOptions, DrainAndUndrainTakeAHostAndAnOptionalGpu) {
  absl::StatusOr<CliOptions> o = Parse({"drain", "node-1.lab", "--timeout-s", "1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kDrain);
  EXPECT_EQ(o->admin.host, "node-1.lab");
  EXPECT_EQ(o->admin.gpu, -1);
  EXPECT_DOUBLE_EQ(o->timeout_s, 1.0);
  o = Parse({"undrain", "--coordinator", "ipc:///tmp/c", "node_2:3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kUndrain);
  EXPECT_EQ(o->admin.host, "node_2");
  EXPECT_EQ(o->admin.gpu, 3);
  EXPECT_EQ(o->coordinator, "ipc:///tmp/c");
}

TEST(AdminOptions, PriorityTakesAJobAndAPriority) {
  absl::StatusOr<CliOptions> o = Parse({"priority", "bert-7", "Opportunistic"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kPriority);
  EXPECT_EQ(o->admin.job, "bert-7");
  EXPECT_EQ(o->admin.priority, Priority::kOpportunistic);
  o = Parse({"priority", "bert-7", "guaranteed"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->admin.priority, Priority::kGuaranteed);
}

TEST(AdminOptions, MistakesAreNamed) {
  EXPECT_THAT(Error({"drain"}), HasSubstr("'iashim drain' takes one HOST or HOST:GPU, got 0"));
  EXPECT_THAT(Error({"drain", "a", "b"}), HasSubstr("got 2 arguments"));
  EXPECT_THAT(Error({"drain", "no de"}), HasSubstr("host 'no de': must be 1-255 characters"));
  EXPECT_THAT(Error({"drain", ":0"}), HasSubstr("host '': must be"));
  EXPECT_THAT(Error({"undrain", "node:x"}), HasSubstr("GPU 'x' in 'node:x': must be an index"));
  EXPECT_THAT(Error({"undrain", "node:64"}), HasSubstr("GPU '64'"));
  EXPECT_THAT(Error({"undrain", "node:"}), HasSubstr("GPU ''"));
  EXPECT_THAT(Error({"priority", "job"}), HasSubstr("takes a job id and a priority"));
  EXPECT_THAT(Error({"priority", "job", "high"}),
              HasSubstr("priority 'high': must be guaranteed or opportunistic"));
  EXPECT_THAT(Error({"priority", "bad job", "guaranteed"}), HasSubstr("job id 'bad job'"));
  // Only the options that say how to reach the coordinator.
  EXPECT_THAT(Error({"drain", "node", "--json"}), HasSubstr("unknown option '--json' for 'iashim drain'"));
  EXPECT_THAT(Error({"priority", "j", "guaranteed", "--mem", "1GiB"}),
              HasSubstr("unknown option '--mem' for 'iashim priority'"));
}

TEST(AdminOptions, HelpSaysTheAdminKeyIsNeeded) {
  absl::StatusOr<CliOptions> o = Parse({"drain", "--help"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, CommandKind::kHelp);
  EXPECT_EQ(o->help_topic, "drain");
  for (const char* topic : {"drain", "undrain", "priority"}) {
    EXPECT_THAT(Usage(topic), HasSubstr("iashim keygen --admin")) << topic;
    EXPECT_THAT(Usage(topic), HasSubstr("Exit status: 0 done, 1 refused")) << topic;
  }
  EXPECT_THAT(Usage(""), HasSubstr("drain HOST[:GPU]"));
  EXPECT_THAT(Usage(""), HasSubstr("priority JOB guaranteed|opportunistic"));
  o = Parse({"help", "priority"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->help_topic, "priority");
}

const wire::AdminRequest& RequestIn(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  EXPECT_TRUE(wire::VerifyEnvelopeBuffer(verifier));
  const wire::AdminRequest* r = wire::GetEnvelope(bytes.data())->payload_as_AdminRequest();
  EXPECT_NE(r, nullptr);
  return *r;
}

TEST(AdminMessages, RequestCarriesTheAction) {
  CliOptions o = *Parse({"drain", "node:2"});
  std::vector<uint8_t> bytes = EncodeAdminRequest(o, 42);
  EXPECT_EQ(RequestIn(bytes).action(), wire::AdminAction::Drain);
  EXPECT_EQ(RequestIn(bytes).host()->str(), "node");
  EXPECT_EQ(RequestIn(bytes).gpu(), 2);
  o = *Parse({"undrain", "node"});
  bytes = EncodeAdminRequest(o, 42);
  EXPECT_EQ(RequestIn(bytes).action(), wire::AdminAction::Undrain);
  EXPECT_EQ(RequestIn(bytes).gpu(), -1);
  o = *Parse({"priority", "j-1", "opportunistic"});
  bytes = EncodeAdminRequest(o, 42);
  EXPECT_EQ(RequestIn(bytes).action(), wire::AdminAction::SetPriority);
  EXPECT_EQ(RequestIn(bytes).job()->str(), "j-1");
  EXPECT_EQ(RequestIn(bytes).priority(), wire::Priority::Opportunistic);
}

Bytes EncodeAdminReply(bool ok, const std::string& error, const std::string& text) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto r = wire::CreateAdminReplyDirect(fbb, ok, error.c_str(), text.c_str());
  fbb.Finish(wire::CreateEnvelope(fbb, wire::Version::Current, 0, wire::Payload::AdminReply,
                                  r.Union()));
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(AdminMessages, RepliesAndRefusals) {
  Bytes b = EncodeAdminReply(true, "", "drained n:0");
  AdminOutcome o = DecodeAdminReply(*wire::GetEnvelope(b.data()));
  EXPECT_TRUE(o.ok);
  EXPECT_EQ(o.text, "drained n:0");
  b = EncodeAdminReply(false, "no job 'x'", "");
  o = DecodeAdminReply(*wire::GetEnvelope(b.data()));
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.text, "no job 'x'");
  b = testing::EncodeErrorReply("needs the admin key");
  o = DecodeAdminReply(*wire::GetEnvelope(b.data()));
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.text, "needs the admin key");
}

TEST(AdminCommand, TheBuiltToolPrintsTheAnswerAndFailsOnARefusal) {
  const testing::EnvEdits env = {{"IASHIM_COORDINATOR", {}}, {"IASHIM_COORDINATOR_KEY", {}}};
  {
    testing::FakeCoordinator fake([](const testing::SeenRequest&, int) {
      return std::vector<Bytes>{EncodeAdminReply(true, "", "drained node-a:1")};
    });
    const testing::ChildResult r =
        testing::RunChild({IASHIM_CLI_PATH, "drain", "node-a:1", "--coordinator", fake.endpoint()}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "drained node-a:1\n");
    ASSERT_EQ(fake.requests().size(), 1u);
    EXPECT_EQ(fake.requests()[0].type, wire::Payload::AdminRequest);
  }
  {
    testing::FakeCoordinator fake([](const testing::SeenRequest&, int) {
      return std::vector<Bytes>{testing::EncodeErrorReply("`iashim priority` needs the admin key")};
    });
    const testing::ChildResult r = testing::RunChild(
        {IASHIM_CLI_PATH, "priority", "j", "guaranteed", "--coordinator", fake.endpoint()}, env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("iashim: refused: `iashim priority` needs the admin key"));
  }
}

TEST(AdminStatus, DrainedGpusAreShown) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::GpuState>> gpus = {
      wire::CreateGpuStateDirect(fbb, 0, "node-a", "H200", "GPU-0", 80ULL << 30, 0, nullptr, true),
      wire::CreateGpuStateDirect(fbb, 1, "node-a", "H200", "GPU-1", 80ULL << 30, 0, nullptr, false)};
  fbb.Finish(wire::CreateStateSnapshotDirect(fbb, 1, 0, "0.1.0", 1.0, &gpus));
  const wire::StateSnapshot& s = *flatbuffers::GetRoot<wire::StateSnapshot>(fbb.GetBufferPointer());
  const std::string table = FormatStatusTable(s);
  EXPECT_THAT(table, HasSubstr("node-a:0 H200"));
  EXPECT_EQ(table.find("DRAINED"), table.rfind("DRAINED"));  // once: GPU 0 only
  EXPECT_LT(table.find("DRAINED (no new jobs)"), table.find("node-a:1"));
  const std::string json = FormatStatusJson(s);
  EXPECT_THAT(json, HasSubstr("\"drained\": true"));
  EXPECT_THAT(json, HasSubstr("\"drained\": false"));
}

TEST(JobToken, PlaceReplyCarriesIt) {
  testing::PlaceReplyFields fields;
  fields.token = "0123456789abcdef0123456789abcdef";
  const Bytes b = testing::EncodePlaceReply(fields);
  EXPECT_EQ(client::DecodePlacement(*wire::GetEnvelope(b.data())).token, fields.token);
  const Bytes old = testing::EncodePlaceReply(testing::PlaceReplyFields{});
  EXPECT_EQ(client::DecodePlacement(*wire::GetEnvelope(old.data())).token, "");
}

TEST(JobToken, RunHandsThePlacedJobItsToken) {
  CliOptions options;
  options.kind = CommandKind::kRun;
  options.command = {"true"};
  client::Placement placed;
  placed.outcome = client::Placement::Outcome::kPlaced;
  placed.job = "j";
  placed.gpu = 0;
  placed.token = "0123456789abcdef0123456789abcdef";
  const client::JobLibraries libs{"/lib/libiashim.so", ""};
  const client::EnvLookup inherited = [](const char* name) -> const char* {
    return std::string(name) == "IASHIM_JOB_TOKEN" ? "ffffffffffffffffffffffffffffffff" : nullptr;
  };
  auto find = [](const std::vector<client::EnvChange>& changes) {
    std::optional<std::optional<std::string>> found;
    for (const client::EnvChange& c : changes) {
      if (c.name == "IASHIM_JOB_TOKEN") found = c.value;
    }
    return found;
  };
  std::vector<std::string> warnings;
  auto token = find(client::ManagedEnvironment(options.job_request(), placed, libs, inherited, &warnings));
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(*token, placed.token);
  EXPECT_TRUE(warnings.empty());
  // No token (an older coordinator) or a malformed one: an inherited token
  // must not leak into the job either.
  placed.token = "";
  token = find(client::ManagedEnvironment(options.job_request(), placed, libs, inherited, &warnings));
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(*token, std::nullopt);
  placed.token = "XYZ";
  token = find(client::ManagedEnvironment(options.job_request(), placed, libs, inherited, &warnings));
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(*token, std::nullopt);
  EXPECT_EQ(warnings.size(), 1u);
  token = find(client::UnmanagedEnvironment(options.job_request(), libs, inherited));
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(*token, std::nullopt);
}

}  // namespace
}  // namespace iashim::cli
