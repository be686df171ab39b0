// A --state-dir holding arbitrary files: the input is snapshot.bin and
// journal.log (fuzz_input.h SplitTwo), written to a scratch directory. The
// store must open (damage is reported, never fatal), a coordinator must
// restore its jobs and interference model from it and run a tick, and after
// a compaction the directory must reopen to the same state, cleanly.
#include <unistd.h>

#include <cstdint>
#include <filesystem>

#include "coordinator/daemon/coordinator.h"
#include "coordinator/state/state_store.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kUnix = 1'800'000'000LL * kSecond;

iashim::policy::Cluster SmallCluster() {
  iashim::policy::Cluster c;
  c.gpus.push_back({{"node1", 0}, "v100", "Tesla V100", "GPU-1", 32ULL << 30});
  c.gpus.push_back({{"node2", 0}, "a100", "A100", "GPU-2", 80ULL << 30});
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const std::string dir = fuzz::ScratchDir() + "/state";
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  std::filesystem::create_directory(dir, ignored);
  const auto [snapshot, journal] = fuzz::SplitTwo(data, size);
  fuzz::WriteScratchFile("state/snapshot.bin", snapshot);
  fuzz::WriteScratchFile("state/journal.log", journal);

  state::StateStore::Options options;
  options.max_observations = 16;
  options.compact_journal_bytes = 0;
  state::State expected;
  {
    absl::StatusOr<std::unique_ptr<state::StateStore>> store =
        state::StateStore::Open(dir, options);
    if (!store.ok()) fuzz::Fail("a state dir with damaged files did not open");
    (void)(*store)->load_report().ToString();
    {
      daemon::Coordinator coordinator(daemon::DaemonOptions{}, SmallCluster(), store->get(),
                                      nullptr, kSecond);
      std::vector<daemon::Outgoing> out;
      coordinator.OnTick(2 * kSecond, kUnix, &out);
      (void)coordinator.EncodeSnapshot(2 * kSecond, kUnix);
    }
    if (!(*store)->Compact().ok()) fuzz::Fail("compaction failed in a writable directory");
    expected = (*store)->state();
  }
  absl::StatusOr<std::unique_ptr<state::StateStore>> reopened =
      state::StateStore::Open(dir, options);
  if (!reopened.ok()) fuzz::Fail("a compacted state dir did not reopen");
  if (!(*reopened)->load_report().clean()) fuzz::Fail("a compacted state dir has damage");
  if (!((*reopened)->state() == expected)) fuzz::Fail("a compacted state dir lost state");
  return 0;
}
