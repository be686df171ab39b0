#include "integrations/slurm/task_setup.h"

#include <deque>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/coordinator/client/test_messages.h"

namespace iashim::slurm {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::string kToken = "0123456789abcdef0123456789abcdef";

client::RequestResult Answer(const std::vector<uint8_t>& bytes) {
  client::RequestResult r;
  r.status = client::RequestStatus::kOk;
  r.reply = client::Reply(bytes.data(), bytes.size());
  return r;
}

client::RequestResult Silence() {
  client::RequestResult r;
  r.status = client::RequestStatus::kNoReply;
  r.detail = "no reply in 2 s";
  return r;
}

client::RequestResult Placed(int gpu, const std::string& host = "node-a") {
  client::testing::PlaceReplyFields f;
  f.job = "slurm-7.0.0";
  f.host = host;
  f.gpu = gpu;
  f.share = 0.5;
  f.token = kToken;
  return Answer(client::testing::EncodePlaceReply(f));
}

client::RequestResult Queued(const std::string& reason) {
  client::testing::PlaceReplyFields f;
  f.ok = false;
  f.queued = true;
  f.error = reason;
  return Answer(client::testing::EncodePlaceReply(f));
}

client::RequestResult Refused(const std::string& reason) {
  client::testing::PlaceReplyFields f;
  f.ok = false;
  f.error = reason;
  return Answer(client::testing::EncodePlaceReply(f));
}

// A task on node-a with GPUs 0 and 1 usable, and a coordinator that answers
// from a script.
class TaskSetupTest : public ::testing::Test {
 protected:
  TaskSetupTest() {
    in_.config = &config_;
    in_.user.enabled = true;
    in_.task = {7, "0", 0};
    in_.host = "node-a";
    in_.command = "python train.py";
    in_.pid = 4242;
    in_.gpus.any_device_file = true;
    in_.gpus.usable = {0, 1};
    in_.libraries.shim = "/opt/iashim/lib/libiashim.so";
    in_.env = [this](const char* name) -> const char* {
      const auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
    seams_.ask = [this](std::span<const uint8_t> request) {
      requests_.emplace_back(request.begin(), request.end());
      if (answers_.empty()) return Silence();
      client::RequestResult r = std::move(answers_.front());
      answers_.pop_front();
      return r;
    };
    seams_.sleep = [this](double s) { now_ += s; };
    seams_.now_s = [this] { return now_; };
    seams_.say = [this](const std::string& line) { said_.push_back(line); };
  }

  std::map<std::string, std::string> EnvOf(const TaskOutcome& o) {
    std::map<std::string, std::string> out;
    for (const client::EnvChange& c : o.env) out[c.name] = c.value.value_or("<unset>");
    return out;
  }

  const wire::PlaceRequest* SentPlaceRequest(size_t i) {
    const wire::Envelope* e = wire::GetEnvelope(requests_.at(i).data());
    return e->payload_as_PlaceRequest();
  }

  PluginConfig config_;
  TaskInputs in_;
  TaskSeams seams_;
  std::map<std::string, std::string> env_ = {{"CUDA_VISIBLE_DEVICES", "0"}};
  std::deque<client::RequestResult> answers_;
  std::vector<std::vector<uint8_t>> requests_;
  std::vector<std::string> said_;
  double now_ = 100;
};

TEST_F(TaskSetupTest, PlacedTaskGetsTheCoordinatorsGpuAndTheShim) {
  answers_.push_back(Placed(1));
  const TaskOutcome o = SetUpTask(in_, seams_);
  ASSERT_EQ(o.kind, TaskOutcome::Kind::kManaged);
  EXPECT_EQ(o.job, "slurm-7.0.0");
  EXPECT_EQ(o.token, kToken);
  EXPECT_EQ(o.gpu, 1);
  const auto env = EnvOf(o);
  EXPECT_THAT(env, Contains(Pair("CUDA_VISIBLE_DEVICES", "1")));
  EXPECT_THAT(env, Contains(Pair("LD_PRELOAD", "/opt/iashim/lib/libiashim.so")));
  EXPECT_THAT(env, Contains(Pair("IASHIM_COORDINATOR", config_.coordinator)));
  EXPECT_THAT(env, Contains(Pair("IASHIM_JOB", "slurm-7.0.0")));
  EXPECT_THAT(env, Contains(Pair("IASHIM_JOB_TOKEN", kToken)));
  EXPECT_THAT(env, Contains(Pair("IASHIM_SHARE", "0.5")));
  EXPECT_THAT(env, Contains(Pair("IASHIM_SLURM_JOB", "7")));
  EXPECT_THAT(env, Contains(Pair("IASHIM_SLURM_GPU", "1")));
  EXPECT_THAT(said_, IsEmpty());

  // What was asked: the task's Slurm ids and the GPUs it may open.
  ASSERT_EQ(requests_.size(), 1u);
  const wire::PlaceRequest* req = SentPlaceRequest(0);
  EXPECT_EQ(req->job()->str(), "slurm-7.0.0");
  EXPECT_EQ(req->host()->str(), "node-a");
  ASSERT_NE(req->allowed_gpus(), nullptr);
  EXPECT_THAT(std::vector<int>(req->allowed_gpus()->begin(), req->allowed_gpus()->end()),
              ElementsAre(0, 1));
  ASSERT_NE(req->batch(), nullptr);
  EXPECT_EQ(req->batch()->system()->str(), "slurm");
  EXPECT_EQ(req->batch()->job()->str(), "7");
  EXPECT_EQ(req->batch()->step()->str(), "0");
  EXPECT_EQ(req->batch()->task(), 0);
  EXPECT_FALSE(req->dry_run());
}

TEST_F(TaskSetupTest, NoCoordinatorLeavesTheTaskAsSlurmPlacedIt) {
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  EXPECT_THAT(o.env, IsEmpty());
  ASSERT_EQ(said_.size(), 1u);  // one line, no more
  EXPECT_THAT(said_[0], HasSubstr("no coordinator at tcp://127.0.0.1:5555 (no reply in 2 s)"));
  EXPECT_THAT(said_[0], HasSubstr("running as Slurm placed it (CUDA_VISIBLE_DEVICES=0)"));
}

TEST_F(TaskSetupTest, QueuedTaskWaitsUntilPlaced) {
  answers_.push_back(Queued("every GPU would be harmed"));
  answers_.push_back(Queued("every GPU would be harmed"));
  answers_.push_back(Placed(0));
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kManaged);
  EXPECT_EQ(requests_.size(), 3u);
  ASSERT_EQ(said_.size(), 1u);  // once per reason
  EXPECT_THAT(said_[0], HasSubstr("queued: every GPU would be harmed"));
  EXPECT_EQ(now_, 104);
}

TEST_F(TaskSetupTest, QueueWaitRunsTheTaskAsPlacedAfterIt) {
  config_.queue_wait_s = 5;
  for (int i = 0; i < 10; ++i) answers_.push_back(Queued("full"));
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  EXPECT_THAT(said_.back(), HasSubstr("still not placed after 5 s"));
  EXPECT_LE(requests_.size(), 4u);
}

TEST_F(TaskSetupTest, ACoordinatorThatQueuedAndWentQuietIsWaitedFor) {
  answers_.push_back(Queued("full"));
  answers_.push_back(Silence());
  answers_.push_back(Placed(1));
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kManaged);
  EXPECT_THAT(said_, Contains(HasSubstr("stopped answering")));
}

TEST_F(TaskSetupTest, RefusalFailsTheTask) {
  answers_.push_back(Refused("asks for 200 GiB; the largest GPU has 141 GiB"));
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kRefused);
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_THAT(said_[0], HasSubstr("refused task slurm-7.0.0: asks for 200 GiB"));
}

TEST_F(TaskSetupTest, APlacementOnAnotherNodeIsGivenBack) {
  answers_.push_back(Placed(0, "node-b"));
  answers_.push_back(Silence());  // the release's answer does not matter
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  ASSERT_EQ(requests_.size(), 2u);
  const wire::Envelope* release = wire::GetEnvelope(requests_[1].data());
  ASSERT_EQ(release->payload_type(), wire::Payload::ReleaseRequest);
  EXPECT_EQ(release->payload_as_ReleaseRequest()->job()->str(), "slurm-7.0.0");
  EXPECT_EQ(release->payload_as_ReleaseRequest()->token()->str(), kToken);
  EXPECT_THAT(said_[0], HasSubstr("on node-b, not on this node (node-a)"));
}

TEST_F(TaskSetupTest, ATaskThatMayOpenNoGpuIsNotPlaced) {
  in_.gpus.usable.clear();
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  EXPECT_THAT(requests_, IsEmpty());
  EXPECT_THAT(said_[0], HasSubstr("may open none of the node's GPUs"));
}

TEST_F(TaskSetupTest, NoDeviceFilesAsksForAnyGpu) {
  in_.gpus = {};
  answers_.push_back(Placed(1));
  EXPECT_EQ(SetUpTask(in_, seams_).kind, TaskOutcome::Kind::kManaged);
  const wire::PlaceRequest* req = SentPlaceRequest(0);
  EXPECT_TRUE(req->allowed_gpus() == nullptr || req->allowed_gpus()->size() == 0);
}

TEST_F(TaskSetupTest, ASingleTaskStepInsideAManagedBatchStepKeepsItsPlacement) {
  env_ = {{"CUDA_VISIBLE_DEVICES", "0"}, {"IASHIM_JOB", "slurm-7.batch.0"},
          {"IASHIM_SLURM_JOB", "7"}, {"IASHIM_SLURM_HOST", "node-a"}, {"IASHIM_SLURM_GPU", "1"}};
  const TaskOutcome o = SetUpTask(in_, seams_);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kInherited);
  EXPECT_THAT(EnvOf(o), ElementsAre(Pair("CUDA_VISIBLE_DEVICES", "1")));
  EXPECT_THAT(requests_, IsEmpty());

  // Another job's markers, or a step of several tasks: placed anew.
  env_["IASHIM_SLURM_JOB"] = "8";
  answers_.push_back(Placed(0));
  EXPECT_EQ(SetUpTask(in_, seams_).kind, TaskOutcome::Kind::kManaged);
  env_["IASHIM_SLURM_JOB"] = "7";
  in_.local_task_count = 2;
  answers_.push_back(Placed(0));
  EXPECT_EQ(SetUpTask(in_, seams_).kind, TaskOutcome::Kind::kManaged);
}

}  // namespace
}  // namespace iashim::slurm

namespace iashim::slurm {
namespace {

// A step of 3 tasks on node-a: one gang of GPUs 2, 0, 1 for all of them.
class StepGangTest : public TaskSetupTest {
 protected:
  StepGangTest() {
    in_.local_task_count = 3;
    in_.gpus.usable = {0, 1, 2, 3};
    EXPECT_TRUE(gang_.Open());
    in_.step_gang = &gang_;
  }
  static client::RequestResult GangPlaced() {
    client::testing::PlaceReplyFields f;
    f.job = "slurm-7.0";
    f.host = "node-a";
    f.gpu = 2;
    f.gpus = {2, 0, 1};
    f.gpu_uuids = {"GPU-2", "GPU-0", "GPU-1"};
    f.token = kToken;
    return Answer(client::testing::EncodePlaceReply(f));
  }
  TaskOutcome AsTask(int task) {
    in_.task.local_task = task;
    return SetUpTask(in_, seams_);
  }
  StepGang gang_;
};

TEST_F(StepGangTest, TheFirstTaskAsksOnceForTheWholeStepAndEachTaskTakesItsGpu) {
  answers_.push_back(GangPlaced());
  const TaskOutcome first = AsTask(0);
  ASSERT_EQ(first.kind, TaskOutcome::Kind::kManaged);
  EXPECT_EQ(first.gpu, 2);
  EXPECT_THAT(EnvOf(first), Contains(Pair("CUDA_VISIBLE_DEVICES", "2")));
  EXPECT_THAT(EnvOf(first), Contains(Pair("IASHIM_RANK", "0")));
  EXPECT_THAT(EnvOf(first), Contains(Pair("IASHIM_JOB", "slurm-7.0")));
  // One request, for the step: 3 GPUs, no task of its own.
  ASSERT_EQ(requests_.size(), 1u);
  const wire::PlaceRequest* req = SentPlaceRequest(0);
  EXPECT_EQ(req->job()->str(), "slurm-7.0");
  EXPECT_EQ(req->gpus(), 3);
  EXPECT_EQ(req->batch()->task(), -1);

  // The other tasks ask nothing: each takes its GPU of the gang, in task order.
  for (int task = 1; task < 3; ++task) {
    const TaskOutcome o = AsTask(task);
    ASSERT_EQ(o.kind, TaskOutcome::Kind::kManaged) << task;
    EXPECT_EQ(o.job, "slurm-7.0");
    EXPECT_EQ(o.token, kToken);
    EXPECT_EQ(o.gpu, task - 1);
    EXPECT_THAT(EnvOf(o), Contains(Pair("CUDA_VISIBLE_DEVICES", std::to_string(task - 1))));
    EXPECT_THAT(EnvOf(o), Contains(Pair("IASHIM_RANK", std::to_string(task))));
    EXPECT_THAT(EnvOf(o), Contains(Pair("IASHIM_JOB_TOKEN", kToken)));
  }
  EXPECT_EQ(requests_.size(), 1u);
}

TEST_F(StepGangTest, ARefusedStepFailsEveryTask) {
  answers_.push_back(Refused("a gang of 3 GPUs: no node has that many"));
  EXPECT_EQ(AsTask(0).kind, TaskOutcome::Kind::kRefused);
  EXPECT_EQ(AsTask(2).kind, TaskOutcome::Kind::kRefused);
}

TEST_F(StepGangTest, NoCoordinatorLeavesEveryTaskAsSlurmPlacedIt) {
  answers_.push_back(Silence());
  EXPECT_EQ(AsTask(0).kind, TaskOutcome::Kind::kAsSlurmPlaced);
  const TaskOutcome other = AsTask(1);
  EXPECT_EQ(other.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  EXPECT_THAT(EnvOf(other), IsEmpty());
}

TEST_F(StepGangTest, ATaskWhoseFirstTaskNeverAnswersRunsAsSlurmPlacedItInTheEnd) {
  config_.queue_wait_s = 30;
  const TaskOutcome o = AsTask(1);
  EXPECT_EQ(o.kind, TaskOutcome::Kind::kAsSlurmPlaced);
  EXPECT_GE(now_ - 100, 30.0);
  EXPECT_THAT(said_, Contains(HasSubstr("first task did not say")));
}

}  // namespace
}  // namespace iashim::slurm
