#include "integrations/slurm/step_gang.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace iashim::slurm {
namespace {

constexpr int kMaxGpus = 64;
constexpr double kPollS = 0.05;

// Copies `s` into a fixed field, NUL-terminated (cut if too long: the
// coordinator's ids and tokens are far shorter).
template <size_t N>
void Put(char (&field)[N], const std::string& s) {
  const size_t n = std::min(s.size(), N - 1);
  std::memcpy(field, s.data(), n);
  field[n] = '\0';
}

}  // namespace

// The placement, as plain data (no pointers: the tasks are separate processes).
struct StepGang::Page {
  std::atomic<int> state;  // 0: not yet; else 1 + Answer
  char job[160];
  char host[256];
  char token[64];
  int gpus[kMaxGpus];
  int gpu_count;
  double share;
  uint64_t mem_limit_bytes;
};

StepGang::~StepGang() {
  if (page_ != nullptr) ::munmap(page_, sizeof(Page));
}

bool StepGang::Open() {
  if (page_ != nullptr) return true;
  void* mem = ::mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
  if (mem == MAP_FAILED) return false;
  page_ = new (mem) Page{};
  return true;
}

void StepGang::Publish(Answer answer, const client::Placement* placement) {
  if (page_ == nullptr) return;
  if (answer == Answer::kPlaced && placement != nullptr) {
    Put(page_->job, placement->job);
    Put(page_->host, placement->host);
    Put(page_->token, placement->token);
    page_->gpu_count = static_cast<int>(std::min<size_t>(placement->gpus.size(), kMaxGpus));
    std::copy_n(placement->gpus.begin(), page_->gpu_count, page_->gpus);
    page_->share = placement->share;
    page_->mem_limit_bytes = placement->mem_limit_bytes;
  }
  page_->state.store(1 + static_cast<int>(answer), std::memory_order_release);
}

StepGang::Answer StepGang::Await(double timeout_s, const std::function<void(double)>& sleep,
                                 const std::function<double()>& now_s,
                                 client::Placement* placement) const {
  if (page_ == nullptr) return Answer::kNoAnswer;
  const double start = now_s();
  int state = 0;
  while ((state = page_->state.load(std::memory_order_acquire)) == 0) {
    if (now_s() - start >= timeout_s) return Answer::kNoAnswer;
    sleep(kPollS);
  }
  const Answer answer = static_cast<Answer>(state - 1);
  if (answer == Answer::kPlaced) {
    placement->outcome = client::Placement::Outcome::kPlaced;
    placement->job = page_->job;
    placement->host = page_->host;
    placement->token = page_->token;
    placement->gpus.assign(page_->gpus, page_->gpus + page_->gpu_count);
    placement->gpu = placement->gpus.empty() ? -1 : placement->gpus.front();
    placement->share = page_->share;
    placement->mem_limit_bytes = page_->mem_limit_bytes;
  }
  return answer;
}

}  // namespace iashim::slurm
