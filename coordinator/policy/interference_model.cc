#include "coordinator/policy/interference_model.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "coordinator/policy/hash.h"
#include "coordinator/policy/running_mean.h"

namespace iashim::policy {
namespace {

constexpr double kMinValue = 0.0;
constexpr double kMaxValue = 1.5;
constexpr double kMinPrediction = 1e-3;
constexpr double kMaxPrediction = 1.2;
// A refit is due when the observations since the last one that were the
// first of their ordered pair reach 1 + pairs / kNovelDivisor (a new pair is
// what teaches the model about pairs not seen: learn it fully, at once, while
// few pairs are held), or when all observations since it reach
// 1 + pairs / kRefitDivisor (repeats mostly move their own pair's mean,
// which Predict reads directly). Either bounds the amortised cost per
// observation to divisor * refit_epochs gradient steps.
constexpr size_t kNovelDivisor = 256;
constexpr size_t kRefitDivisor = 8;
// Gradient steps an observation gets at once when no refit is due.
constexpr int kQuickSteps = 3;
// Weight of the last observation in recent_abs_error (~the last 50).
constexpr double kRecentAlpha = 2.0 / 51.0;
// Before anything is known, a prediction is this uncertain.
constexpr double kPriorUncertainty = 0.25;
// Within-pair noise assumed until repeated observations measure it.
constexpr double kDefaultNoise = 0.05;
constexpr double kMinNoise = 0.01;
// Features are centred here, so a missing feature (0) means "typical".
constexpr double kFeatureCentre = 0.5;
constexpr int kFeatures = 2;
// Ridge on the feature slopes, in units of kinds (a kind's feature spread is
// at most 0.25 squared).
constexpr double kFeatureRidge = 0.01;
// Initial factors, uniform in [-kInitialFactor, kInitialFactor]: large
// enough that gradient descent leaves the saddle at zero in few passes.
constexpr double kInitialFactor = 0.1;

// Deterministic generator for the initial factors and the visiting order.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // Uniform in [-1, 1).
  double Symmetric() { return static_cast<double>(Next() >> 11) * 0x1.0p-52 - 1.0; }
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

uint64_t PairKey(int victim, int aggressor) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(victim)) << 32) |
         static_cast<uint32_t>(aggressor);
}

// This abseil's string_view is its own type: heterogeneous lookups need it.
absl::string_view AsAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

double Centred(double feature) {
  return std::isfinite(feature) ? feature - kFeatureCentre : 0.0;
}

double Clamp(double v) { return std::clamp(v, kMinPrediction, kMaxPrediction); }

bool Present(double v) { return !std::isnan(v); }

}  // namespace

std::string_view FamilyOf(std::string_view kind) {
  const size_t paren = kind.find(" (");
  return paren == std::string_view::npos || paren == 0 ? kind : kind.substr(0, paren);
}

struct InterferenceModel::Impl {
  // Biases and factors of a family, or a kind's deviation from its family.
  struct Terms {
    double victim = 0;
    double aggressor = 0;
    std::vector<double> p;  // victim factors
    std::vector<double> q;  // aggressor factors
  };
  struct Kind {
    int family = 0;
    Terms own;
    RunningMean busy;
    RunningMean memory_bound;
  };
  struct Pair {
    int victim = 0;
    int aggressor = 0;
    double sum = 0;
    double sum_sq = 0;
    int64_t count = 0;
    double Mean() const { return sum / static_cast<double>(count); }
    // Sum of squared deviations from the mean.
    double Spread() const {
      if (count == 0) return 0;
      return std::max(0.0, sum_sq - sum * sum / static_cast<double>(count));
    }
  };
  struct Held {
    int pair = 0;  // index into pairs
    double value = 0;
  };
  // What Predict needs of one side of a pair, resolved once.
  struct Side {
    const Terms* family = nullptr;  // null: unknown family
    const Terms* kind = nullptr;    // null: unknown kind
    // Biases from the profile features, for a job of unknown kind and family.
    double victim_from_features = 0;
    double aggressor_from_features = 0;
    // The share of its GPU time in memory-bound kernels (NaN: unknown), for
    // the like-with-like term.
    double memory_bound = std::nan("");
  };
  // Ridge fit of the kinds' learned biases on (1, busy, memory_bound).
  struct FeatureFit {
    double w[kFeatures + 1] = {0, 0, 0};
    double At(const double x[kFeatures]) const { return w[0] + w[1] * x[0] + w[2] * x[1]; }
  };

  explicit Impl(Options o) : options(o), rng(o.seed), mu(o.prior_mean) {
    options.factors = std::max(options.factors, 0);
    options.refit_epochs = std::max(options.refit_epochs, 0);
    options.max_observations = std::max(options.max_observations, 1);
    options.pair_shrinkage = std::max(options.pair_shrinkage, 0.0);
    options.kind_backoff = std::max(options.kind_backoff, 0.0);
  }

  Terms NewTerms() {
    Terms t;
    t.p.resize(options.factors);
    t.q.resize(options.factors);
    // Random victim factors break the symmetry between dimensions; zero
    // aggressor factors keep a new kind's interactions at zero until learned
    // (the first step moves only q, by the error times p).
    for (double& v : t.p) v = kInitialFactor * rng.Symmetric();
    return t;
  }

  int InternFamily(std::string_view name) {
    auto it = family_index.find(AsAbsl(name));
    if (it != family_index.end()) return it->second;
    const int id = static_cast<int>(families.size());
    family_index.emplace(std::string(name), id);
    families.push_back(NewTerms());
    return id;
  }

  int InternKind(const JobTraits& t) {
    auto it = kind_index.find(t.kind);
    if (it != kind_index.end()) return it->second;
    const int id = static_cast<int>(kinds.size());
    kind_index.emplace(t.kind, id);
    Kind k;
    k.family = InternFamily(t.family.empty() ? FamilyOf(t.kind) : std::string_view(t.family));
    k.own = NewTerms();
    kinds.push_back(std::move(k));
    names.push_back(JobTraits{.kind = t.kind});
    return id;
  }

  void RecordFeatures(int kind, const JobTraits& t) {
    if (Present(t.busy) && std::isfinite(t.busy)) kinds[kind].busy.Add(t.busy);
    if (Present(t.memory_bound) && std::isfinite(t.memory_bound)) {
      kinds[kind].memory_bound.Add(t.memory_bound);
    }
  }

  // Looks a job up without allocating: a known kind by its own terms, else
  // its family's, else (a family never seen) its profile features.
  Side Resolve(const JobTraits& t, int* kind_id) const {
    Side s;
    *kind_id = -1;
    const double busy = t.busy;
    const double memory_bound = t.memory_bound;
    s.memory_bound = memory_bound;
    auto k = kind_index.find(t.kind);
    if (k != kind_index.end()) {
      *kind_id = k->second;
      const Kind& kind = kinds[k->second];
      s.kind = &kind.own;
      s.family = &families[kind.family];
      if (!std::isfinite(s.memory_bound)) s.memory_bound = kind.memory_bound.Mean();
      return s;
    }
    auto f = family_index.find(
        AsAbsl(t.family.empty() ? FamilyOf(t.kind) : std::string_view(t.family)));
    if (f != family_index.end()) {
      s.family = &families[f->second];
    } else if (std::isfinite(busy) || std::isfinite(memory_bound)) {
      // Nothing known of the job but its profile: kinds that look alike.
      const double x[kFeatures] = {Centred(busy), Centred(memory_bound)};
      s.victim_from_features = victim_fit.At(x);
      s.aggressor_from_features = aggressor_fit.At(x);
    }
    return s;
  }

  Side SideOf(int kind_id) const {
    Side s;
    const Kind& kind = kinds[kind_id];
    s.kind = &kind.own;
    s.family = &families[kind.family];
    s.memory_bound = kind.memory_bound.Mean();
    return s;
  }

  // The like-with-like products of two jobs' kernel mixes: how much of the
  // pair's time both spend on DRAM bandwidth, and both on the SMs. Two
  // memory-bound jobs contend where a memory-bound and a compute-bound one
  // overlap, and this is what lets a pair never seen together be predicted
  // from what the kinds' kernels are. Zero when either mix is unknown.
  static void LikeWithLike(const Side& v, const Side& a, double* memory, double* compute) {
    *memory = 0;
    *compute = 0;
    if (!std::isfinite(v.memory_bound) || !std::isfinite(a.memory_bound)) return;
    *memory = v.memory_bound * a.memory_bound;
    *compute = (1 - v.memory_bound) * (1 - a.memory_bound);
  }

  // The model without the pair's own evidence.
  double Base(const Side& v, const Side& a) const {
    double f = mu;
    if (v.family) f += v.family->victim;
    if (v.kind) f += v.kind->victim;
    if (a.family) f += a.family->aggressor;
    if (a.kind) f += a.kind->aggressor;
    f += v.victim_from_features + a.aggressor_from_features;
    double both_memory, both_compute;
    LikeWithLike(v, a, &both_memory, &both_compute);
    f += like_memory * both_memory + like_compute * both_compute;
    for (int d = 0; d < options.factors; ++d) {
      double p = 0, q = 0;
      if (v.family) p += v.family->p[d];
      if (v.kind) p += v.kind->p[d];
      if (a.family) q += a.family->q[d];
      if (a.kind) q += a.kind->q[d];
      f += p * q;
    }
    return f;
  }

  const Pair* FindPair(int victim, int aggressor) const {
    if (victim < 0 || aggressor < 0) return nullptr;
    auto it = pair_index.find(PairKey(victim, aggressor));
    if (it == pair_index.end()) return nullptr;
    const Pair& p = pairs[it->second];
    return p.count > 0 ? &p : nullptr;
  }

  InterferencePrediction Predict(const JobTraits& victim, const JobTraits& aggressor) const {
    InterferencePrediction out;
    int v_id = -1, a_id = -1;
    const Side v = Resolve(victim, &v_id);
    const Side a = Resolve(aggressor, &a_id);
    const double base = Base(v, a);
    // The model's own error on pairs it had not seen, inflated for each
    // side that is not even a known kind.
    double model_sd = (novel_weight > 0 ? novel_error / novel_weight : kPriorUncertainty) * 1.25;
    if (v.kind == nullptr) model_sd *= 1.5;
    if (a.kind == nullptr) model_sd *= 1.5;
    const Pair* pair = FindPair(v_id, a_id);
    if (pair == nullptr) {
      out.throughput = Clamp(base);
      out.uncertainty = model_sd;
      return out;
    }
    const double n = static_cast<double>(pair->count);
    out.throughput = Clamp(base + n / (n + options.pair_shrinkage) * (pair->Mean() - base));
    const double noise = Noise();
    out.uncertainty = 1.0 / std::sqrt(1.0 / (model_sd * model_sd) + n / (noise * noise));
    out.evidence = static_cast<int>(std::min<int64_t>(pair->count, INT32_MAX));
    return out;
  }

  // Pooled within-pair standard deviation.
  double Noise() const {
    if (noise_dof <= 0) return kDefaultNoise;
    return std::max(std::sqrt(noise_ss / static_cast<double>(noise_dof)), kMinNoise);
  }

  void ScoreBeforeLearning(int victim, int aggressor, double value) {
    const double predicted = Predict(names[victim], names[aggressor]).throughput;
    const double e = std::abs(predicted - value);
    ++predictions;
    total_error += e;
    recent_error = (1 - kRecentAlpha) * recent_error + kRecentAlpha * e;
    recent_weight = (1 - kRecentAlpha) * recent_weight + kRecentAlpha;
    if (FindPair(victim, aggressor) == nullptr) {
      novel_error = (1 - kRecentAlpha) * novel_error + kRecentAlpha * e;
      novel_weight = (1 - kRecentAlpha) * novel_weight + kRecentAlpha;
    }
  }

  int PairIndex(int victim, int aggressor) {
    auto [it, inserted] =
        pair_index.try_emplace(PairKey(victim, aggressor), static_cast<int>(pairs.size()));
    if (inserted) pairs.push_back(Pair{victim, aggressor});
    return it->second;
  }

  // Folds a value into its pair's sums (and the pooled noise estimate).
  void AddToPair(Pair& p, double value, int sign) {
    const bool was_active = p.count > 0;
    // The pair's spread before and after, so removal works too.
    noise_ss -= p.Spread();
    noise_dof -= std::max<int64_t>(p.count - 1, 0);
    p.sum += sign * value;
    p.sum_sq += sign * value * value;
    p.count += sign;
    if (p.count <= 0) p = Pair{p.victim, p.aggressor};  // no rounding residue
    noise_ss = std::max(0.0, noise_ss + p.Spread());
    noise_dof += std::max<int64_t>(p.count - 1, 0);
    if (p.count > 0 && !was_active) ++active_pairs;
    if (p.count == 0 && was_active) --active_pairs;
  }

  // One stochastic gradient step on `target` for (victim, aggressor).
  void Step(int victim, int aggressor, double target, double weight) {
    Kind& vk = kinds[victim];
    Kind& ak = kinds[aggressor];
    Terms& vf = families[vk.family];
    Terms& af = families[ak.family];
    const Side vs = SideOf(victim);
    const Side as = SideOf(aggressor);
    const double e = weight * (target - Base(vs, as));
    const double lr = options.learning_rate;
    const double reg = options.regularisation;
    const double kind_reg = reg * options.kind_backoff;
    mu += lr * e;
    double both_memory, both_compute;
    LikeWithLike(vs, as, &both_memory, &both_compute);
    // Two weights for every pair: regularised like the global mean (not at
    // all), so that few pairs of each sort are enough to set them.
    like_memory += lr * e * both_memory;
    like_compute += lr * e * both_compute;
    vf.victim += lr * (e - reg * vf.victim);
    vk.own.victim += lr * (e - kind_reg * vk.own.victim);
    af.aggressor += lr * (e - reg * af.aggressor);
    ak.own.aggressor += lr * (e - kind_reg * ak.own.aggressor);
    for (int d = 0; d < options.factors; ++d) {
      const double p = vf.p[d] + vk.own.p[d];
      const double q = af.q[d] + ak.own.q[d];
      vf.p[d] += lr * (e * q - reg * vf.p[d]);
      vk.own.p[d] += lr * (e * q - kind_reg * vk.own.p[d]);
      af.q[d] += lr * (e * p - reg * af.q[d]);
      ak.own.q[d] += lr * (e * p - kind_reg * ak.own.q[d]);
    }
  }

  // A pair observed n times weighs up to twice a pair seen once: repeated
  // evidence is surer, but one frequent pair must not drown the rest.
  static double Weight(const Pair& p) {
    const double n = static_cast<double>(p.count);
    return 2.0 * n / (n + 1.0);
  }

  void Refit() {
    order.clear();
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (pairs[i].count > 0) order.push_back(static_cast<int>(i));
    }
    for (int epoch = 0; epoch < options.refit_epochs; ++epoch) {
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
      for (int i : order) {
        const Pair& p = pairs[i];
        Step(p.victim, p.aggressor, p.Mean(), Weight(p));
      }
    }
    pending = 0;
    pending_novel = 0;
    FitFeatures();
  }

  // Regresses the kinds' learned biases (family + own) on their profile
  // features, by ridge least squares over the kinds that have any.
  void FitFeatures() {
    double vtv[3][3] = {}, vty[3] = {}, aty[3] = {};
    int n = 0;
    for (const Kind& k : kinds) {
      const double busy = k.busy.Mean(), memory_bound = k.memory_bound.Mean();
      if (!std::isfinite(busy) && !std::isfinite(memory_bound)) continue;
      const double z[3] = {1, Centred(busy), Centred(memory_bound)};
      const double victim = families[k.family].victim + k.own.victim;
      const double aggressor = families[k.family].aggressor + k.own.aggressor;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) vtv[i][j] += z[i] * z[j];
        vty[i] += z[i] * victim;
        aty[i] += z[i] * aggressor;
      }
      ++n;
    }
    victim_fit = FeatureFit{};
    aggressor_fit = FeatureFit{};
    if (n == 0) return;
    // The slopes are shrunk (the intercept is not) so two kinds do not make
    // a law.
    vtv[1][1] += kFeatureRidge;
    vtv[2][2] += kFeatureRidge;
    Solve3(vtv, vty, victim_fit.w);
    Solve3(vtv, aty, aggressor_fit.w);
  }

  // Solves m x = b by Cramer's rule (m is symmetric positive definite).
  static void Solve3(const double m[3][3], const double b[3], double x[3]) {
    auto det = [](const double a[3][3]) {
      return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
             a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
             a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    };
    const double d = det(m);
    if (std::abs(d) < 1e-12) return;
    for (int c = 0; c < 3; ++c) {
      double mc[3][3];
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) mc[i][j] = j == c ? b[i] : m[i][j];
      }
      x[c] = det(mc) / d;
    }
  }

  void Learn(int victim, int aggressor, double value) {
    const int index = PairIndex(victim, aggressor);
    AddToPair(pairs[index], value, +1);
    held.push_back(Held{index, value});
    ++accepted;
    while (held.size() > static_cast<size_t>(options.max_observations)) {
      AddToPair(pairs[held.front().pair], held.front().value, -1);
      held.pop_front();
    }
    ++pending;
    if (pairs[index].count == 1) ++pending_novel;
    if (pending_novel >= 1 + active_pairs / kNovelDivisor ||
        pending >= 1 + active_pairs / kRefitDivisor) {
      Refit();
    } else {
      for (int i = 0; i < kQuickSteps; ++i) Step(victim, aggressor, value, 1.0);
    }
  }

  Options options;
  Rng rng;
  double mu;
  // Weights of the like-with-like terms (LikeWithLike), learned with the rest.
  double like_memory = 0;
  double like_compute = 0;
  FeatureFit victim_fit;
  FeatureFit aggressor_fit;

  absl::flat_hash_map<std::string, int> kind_index;
  absl::flat_hash_map<std::string, int> family_index;
  std::vector<Kind> kinds;
  std::vector<JobTraits> names;  // per kind: traits to score with (no features)
  std::vector<Terms> families;
  absl::flat_hash_map<uint64_t, int> pair_index;
  std::vector<Pair> pairs;  // never shrinks: indices stay valid
  std::deque<Held> held;
  std::vector<int> order;  // refit scratch
  size_t active_pairs = 0;
  size_t pending = 0;        // observations since the last refit
  size_t pending_novel = 0;  // of which first of their pair
  double noise_ss = 0;
  int64_t noise_dof = 0;

  int64_t accepted = 0;
  int64_t rejected = 0;
  int64_t predictions = 0;
  double total_error = 0;
  double recent_error = 0;
  double recent_weight = 0;
  double novel_error = 0;
  double novel_weight = 0;
};

InterferenceModel::InterferenceModel() : InterferenceModel(Options{}) {}
InterferenceModel::InterferenceModel(Options options)
    : impl_(std::make_unique<Impl>(options)) {}
InterferenceModel::~InterferenceModel() = default;
InterferenceModel::InterferenceModel(InterferenceModel&&) noexcept = default;
InterferenceModel& InterferenceModel::operator=(InterferenceModel&&) noexcept = default;

void InterferenceModel::Observe(const JobTraits& a, const JobTraits& b, double a_norm,
                                double b_norm) {
  Impl& m = *impl_;
  const bool kinds_ok = !a.kind.empty() && !b.kind.empty();
  // NaN is "not measured"; anything else unusable is counted.
  auto usable = [&](double v) {
    if (std::isnan(v)) return false;
    if (!kinds_ok || !std::isfinite(v) || v < kMinValue || v > kMaxValue) {
      ++m.rejected;
      return false;
    }
    return true;
  };
  const bool use_a = usable(a_norm);
  const bool use_b = usable(b_norm);
  if (!use_a && !use_b) return;
  const int ia = m.InternKind(a);
  const int ib = m.InternKind(b);
  m.RecordFeatures(ia, a);
  m.RecordFeatures(ib, b);
  // Both directions are scored before either is learned.
  if (use_a) m.ScoreBeforeLearning(ia, ib, a_norm);
  if (use_b) m.ScoreBeforeLearning(ib, ia, b_norm);
  if (use_a) m.Learn(ia, ib, a_norm);
  if (use_b) m.Learn(ib, ia, b_norm);
}

InterferencePrediction InterferenceModel::Predict(const JobTraits& victim,
                                                  const JobTraits& aggressor) const {
  return impl_->Predict(victim, aggressor);
}

PredictionError InterferenceModel::error() const {
  PredictionError e;
  e.predictions = impl_->predictions;
  if (e.predictions > 0) {
    e.mean_abs_error = impl_->total_error / static_cast<double>(e.predictions);
    e.recent_abs_error = impl_->recent_error / impl_->recent_weight;
  }
  return e;
}

std::vector<LearnedPair> InterferenceModel::LearnedPairs() const {
  std::vector<LearnedPair> out;
  for (const Impl::Pair& p : impl_->pairs) {
    if (p.count == 0) continue;
    const JobTraits& victim = impl_->names[p.victim];
    const JobTraits& aggressor = impl_->names[p.aggressor];
    const InterferencePrediction prediction = impl_->Predict(victim, aggressor);
    out.push_back({.victim = victim.kind,
                   .aggressor = aggressor.kind,
                   .observations = p.count,
                   .measured = p.Mean(),
                   .predicted = prediction.throughput,
                   .model_only = Clamp(impl_->Base(impl_->SideOf(p.victim), impl_->SideOf(p.aggressor))),
                   .uncertainty = prediction.uncertainty});
  }
  std::sort(out.begin(), out.end(), [](const LearnedPair& a, const LearnedPair& b) {
    return std::tie(a.victim, a.aggressor) < std::tie(b.victim, b.aggressor);
  });
  return out;
}

int64_t InterferenceModel::observations() const { return impl_->accepted; }
int64_t InterferenceModel::rejected() const { return impl_->rejected; }

}  // namespace iashim::policy
