// When the ranks of a data-parallel fake job stop. Each rank stops on its own
// clock (--seconds) or on a signal, but a rank that launched one iteration
// more than the others would wait in its all-reduce for ever. So the ranks
// agree through a small file, /dev/shm/<group>.stop (in $SIMGPU_FABRIC when
// set: ranks on several simulated nodes), on the last iteration
// (as a framework broadcasts its stop flag):
//
//   a rank that wants to stop after completing iteration c proposes c + 1
//   (one more, which a peer may already be in), and the smallest proposal
//   wins; every rank, before each iteration, stops once it has completed the
//   agreed number.
//
// A peer is at most one iteration ahead of a rank (they meet every
// iteration), so no rank is ever past the agreed iteration. A file left by an
// earlier run under the same name (torchrun reuses its port) is older than
// this process and is ignored.
#ifndef IASHIM_BENCH_FAKEJOB_STOP_AGREEMENT_H_
#define IASHIM_BENCH_FAKEJOB_STOP_AGREEMENT_H_

#include <cstdint>
#include <ctime>
#include <string>

namespace iashim::fakejob {

class StopAgreement {
 public:
  // `group` empty: a lone job, which stops when it wants to.
  explicit StopAgreement(const std::string& group);

  // Called before each iteration with the iterations completed so far and
  // whether this rank wants to stop; true when it must stop now.
  bool ShouldStop(int64_t completed, bool wants_to_stop);

  // The file, for the launcher to remove once every rank has exited.
  static std::string PathFor(const std::string& group);

 private:
  // The agreed number of iterations, or -1 if none yet.
  int64_t Agreed() const;
  void Propose(int64_t iterations);

  const std::string path_;  // empty for a lone job
  timespec started_{};      // files older than this are an earlier run's
};

}  // namespace iashim::fakejob

#endif  // IASHIM_BENCH_FAKEJOB_STOP_AGREEMENT_H_
