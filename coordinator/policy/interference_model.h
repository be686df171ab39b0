// Predicts how much two jobs slow each other down on one GPU before they are
// put together, and learns from every co-location it sees.
//
// A prediction is a job's *normalised throughput* next to another job: its
// speed when paired divided by its speed alone (1 = unharmed, 0.5 = half
// speed). Jobs are known by their JobTraits: a kind (the model: a Gavel job
// type in iashim-clustersim, the model fingerprint's name in the daemon), the
// family the kind belongs to (kinds of one family, e.g. one network at
// several batch sizes, interfere alike), and profile features when the
// coordinator has measured them.
//
// The model is collaborative filtering with side information: a global
// mean, a "victim" bias per kind (how much it suffers), an "aggressor" bias
// per kind (how much it harms), each backed off to its family's bias when
// the kind has little evidence, and low-rank latent factors for the pair
// interactions, all refit from the observations it holds. A pair observed
// directly is predicted mostly from its own (shrunk) mean. So one
// observation of ResNet-18 at batch size 32 tells something about ResNet-18
// at batch size 64, and an unseen pair still gets a sensible estimate.
//
// Pure: no I/O, no clock, no threads, no randomness beyond the seed in
// Options. Observe() mutates; Predict() is const and cheap (a few hash
// lookups and a dot product), so placement can call it for every candidate.
#ifndef IASHIM_POLICY_INTERFERENCE_MODEL_H_
#define IASHIM_POLICY_INTERFERENCE_MODEL_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace iashim::policy {

// What the model knows of a job.
struct JobTraits {
  std::string kind;    // required: the model, e.g. "ResNet-18 (batch size 64)"
  std::string family;  // empty: derived from kind (FamilyOf)
  // Profile features, NaN when not measured: the job's GPU busy fraction
  // alone, and the share of its GPU time in memory-bound kernels. Recorded
  // per kind when observed; a job whose kind and family were never observed
  // gets biases regressed on them across the kinds that have them.
  double busy = std::nan("");
  double memory_bound = std::nan("");
};

// The family a kind belongs to: the text before " (" ("ResNet-18 (batch size
// 64)" -> "ResNet-18"), or the whole kind.
std::string_view FamilyOf(std::string_view kind);

struct InterferencePrediction {
  double throughput = 1.0;  // normalised throughput of the victim, in (0, 1.2]
  double uncertainty = 1.0; // rough standard error of `throughput`
  int evidence = 0;         // observations of exactly this ordered pair
};

// Anything that can say how fast `victim` runs next to `aggressor`. The
// learned model implements it; iashim-clustersim's oracle implements it with
// measured ground truth.
class InterferencePredictor {
 public:
  virtual ~InterferencePredictor() = default;
  virtual InterferencePrediction Predict(const JobTraits& victim,
                                         const JobTraits& aggressor) const = 0;
};

// Prequential error: each observation is first predicted, then learned.
struct PredictionError {
  int64_t predictions = 0;      // observations scored
  double mean_abs_error = 0;    // mean |predicted - observed| over them
  double recent_abs_error = 0;  // exponentially weighted (last ~50)
};

// One ordered pair the model has observations of: what was measured, what
// placement is told, and how well the latent-factor model explains the pair.
struct LearnedPair {
  std::string victim;     // kinds
  std::string aggressor;
  int64_t observations = 0;
  double measured = 0;     // mean normalised throughput of the victim, as observed
  double predicted = 0;    // Predict(): the model shrunk toward the pair's mean
  double model_only = 0;   // the factor model's own estimate (fit on every pair, this one
                           // included), before shrinking toward the pair's mean
  double uncertainty = 0;  // Predict()'s
};

class InterferenceModel : public InterferencePredictor {
 public:
  struct Options {
    double prior_mean = 0.68;  // before any observation (Gavel v100's median job keeps 0.68)
    int factors = 3;           // latent dimensions
    double regularisation = 0.007;  // L2 on family biases and factors
    // Kind-level terms (a kind's own bias and factors on top of its
    // family's) are regularised `kind_backoff` times harder, so a kind with
    // little evidence is predicted from its family.
    double kind_backoff = 4.0;
    double learning_rate = 0.02;
    int refit_epochs = 20;     // passes over the held pairs per refit
    // An observed ordered pair with n observations is predicted as
    // (n * its mean + pair_shrinkage * model) / (n + pair_shrinkage).
    double pair_shrinkage = 0.5;
    uint64_t seed = 1;         // initial latent factors, visiting order
    int max_observations = 100000;  // oldest are dropped beyond this
  };

  InterferenceModel();
  explicit InterferenceModel(Options options);
  ~InterferenceModel() override;
  InterferenceModel(InterferenceModel&&) noexcept;
  InterferenceModel& operator=(InterferenceModel&&) noexcept;

  // Records that `a` ran at normalised throughput `a_norm` next to `b`, which
  // ran at `b_norm` (either may be NaN when not measured: it is skipped).
  // Infinite values, values outside [0, 1.5] and values of a job with an
  // empty kind are ignored and counted in rejected().
  //
  // Cost: the value joins its ordered pair's mean at once (Predict reads it
  // directly). The model is refit by SGD, warm, refit_epochs passes over the
  // distinct ordered pairs held, when the first-seen pairs since the last
  // refit reach 1 + pairs / 256, or all values since it 1 + pairs / 8;
  // otherwise the value gets a few gradient steps. So a new pair is learned
  // fully while few are held, and the amortised cost per call stays bounded
  // (measured: 10k calls over Gavel's ~660 ordered v100 pairs take ~0.25 s;
  // a Predict ~150 ns, no allocation).
  void Observe(const JobTraits& a, const JobTraits& b, double a_norm, double b_norm);

  InterferencePrediction Predict(const JobTraits& victim,
                                 const JobTraits& aggressor) const override;

  PredictionError error() const;
  // Every ordered pair observed, in (victim, aggressor) order.
  std::vector<LearnedPair> LearnedPairs() const;
  int64_t observations() const;  // values accepted (each direction counts one)
  int64_t rejected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_INTERFERENCE_MODEL_H_
