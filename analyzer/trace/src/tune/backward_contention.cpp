#include "parity/analyzer/tune/backward_contention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "parity/analyzer/profile/distribution.hpp"

namespace parity::analyzer {
namespace {

double median(std::vector<double> values) { return distribution_of(values).median_ns; }

// The fraction of an AllReduce's bytes reduced before `t_ns`.
double reduced_fraction(const BackwardRecord::Allreduce& allreduce, double t_ns) {
  if (allreduce.start_ns >= t_ns) return 0;
  const double duration = allreduce.end_ns - allreduce.start_ns;
  return duration <= 0 || allreduce.end_ns <= t_ns ? 1.0 : (t_ns - allreduce.start_ns) / duration;
}

// One record's backward: its wall duration and, by message size (ascending),
// the bytes reduced during it, summed from the smallest size up.
struct RecordBytes {
  std::int64_t rank = 0, run = 0;
  double wall_ns = 0;
  std::vector<double> sizes, reduced_up_to;

  explicit RecordBytes(const BackwardRecord& record)
      : rank(record.rank), run(record.run), wall_ns(record.end_ns) {
    std::vector<std::pair<double, double>> by_size;
    for (const BackwardRecord::Allreduce& allreduce : record.allreduces)
      by_size.emplace_back(allreduce.bytes,
                           allreduce.bytes * reduced_fraction(allreduce, record.end_ns));
    std::sort(by_size.begin(), by_size.end());
    double sum = 0;
    for (const auto& [size, reduced] : by_size) {
      sum += reduced;
      sizes.push_back(size);
      reduced_up_to.push_back(sum);
    }
  }
  double total() const { return reduced_up_to.empty() ? 0.0 : reduced_up_to.back(); }
  // Bytes of messages of up to `knee` bytes.
  double up_to(double knee) const {
    const auto end = std::upper_bound(sizes.begin(), sizes.end(), knee);
    return end == sizes.begin() ? 0.0 : reduced_up_to[std::size_t(end - sizes.begin()) - 1];
  }
};

// One (run, rank): medians over its steps of backward's wall duration and the
// bytes reduced in messages up to the knee and above it.
struct RunSample {
  std::int64_t rank = 0, run = 0;
  double wall = 0, x[2] = {0, 0};
};

std::vector<RunSample> run_samples(const std::vector<RecordBytes>& records, double knee) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::array<std::vector<double>, 3>> steps;
  for (const RecordBytes& record : records) {
    auto& columns = steps[{record.rank, record.run}];
    const double below = record.up_to(knee);
    columns[0].push_back(record.wall_ns);
    columns[1].push_back(below);
    columns[2].push_back(record.total() - below);
  }
  std::vector<RunSample> samples;
  for (auto& [key, columns] : steps)
    samples.push_back({key.first,
                       key.second,
                       median(std::move(columns[0])),
                       {median(std::move(columns[1])), median(std::move(columns[2]))}});
  return samples;
}

// Least squares of wall = intercept(rank) + sum of slope_i x_i over the first
// `regressors` columns, with the slopes' covariance.
struct SlopeFit {
  double slope[2] = {0, 0}, covariance[2][2] = {{0, 0}, {0, 0}};
  double residual = 0;                       // the sum of squared errors
  std::map<std::int64_t, double> intercept;  // by rank

  // The wall a sample's bytes predict; none for a rank the fit did not see.
  std::optional<double> predict(const RunSample& sample) const {
    const auto it = intercept.find(sample.rank);
    if (it == intercept.end()) return std::nullopt;
    return it->second + slope[0] * sample.x[0] + slope[1] * sample.x[1];
  }
};

std::optional<SlopeFit> fit_slopes(const std::vector<RunSample>& samples, int regressors) {
  std::map<std::int64_t, std::array<double, 4>> means;  // wall, x0, x1, count
  for (const RunSample& sample : samples) {
    auto& mean = means[sample.rank];
    mean[0] += sample.wall, mean[1] += sample.x[0], mean[2] += sample.x[1], mean[3] += 1;
  }
  for (auto& [rank, mean] : means)
    for (int i = 0; i < 3; ++i) mean[i] /= mean[3];
  // Degrees of freedom: one intercept per rank and the slopes.
  const std::ptrdiff_t freedom = std::ptrdiff_t(samples.size() - means.size()) - regressors;
  if (freedom < 1) return std::nullopt;
  double sxx[2][2] = {{0, 0}, {0, 0}}, sxy[2] = {0, 0};
  for (const RunSample& sample : samples) {
    const auto& mean = means[sample.rank];
    const double dx[2] = {sample.x[0] - mean[1], sample.x[1] - mean[2]};
    for (int i = 0; i < regressors; ++i) {
      sxy[i] += dx[i] * (sample.wall - mean[0]);
      for (int j = 0; j < regressors; ++j) sxx[i][j] += dx[i] * dx[j];
    }
  }
  double inverse[2][2];
  if (regressors == 1) {
    if (sxx[0][0] <= 0) return std::nullopt;
    inverse[0][0] = 1 / sxx[0][0];
  } else {
    // Collinear columns (one run's bytes on both sides of the knee in the same
    // proportion as every other's) tell no two rates apart.
    const double det = sxx[0][0] * sxx[1][1] - sxx[0][1] * sxx[1][0];
    if (det <= 1e-9 * sxx[0][0] * sxx[1][1]) return std::nullopt;
    inverse[0][0] = sxx[1][1] / det, inverse[1][1] = sxx[0][0] / det;
    inverse[0][1] = inverse[1][0] = -sxx[0][1] / det;
  }
  SlopeFit fit;
  for (int i = 0; i < regressors; ++i)
    for (int j = 0; j < regressors; ++j) fit.slope[i] += inverse[i][j] * sxy[j];
  for (const RunSample& sample : samples) {
    const auto& mean = means[sample.rank];
    double error = sample.wall - mean[0];
    for (int i = 0; i < regressors; ++i) error -= fit.slope[i] * (sample.x[i] - mean[1 + i]);
    fit.residual += error * error;
  }
  for (const auto& [rank, mean] : means)
    fit.intercept[rank] = mean[0] - fit.slope[0] * mean[1] - fit.slope[1] * mean[2];
  const double variance = fit.residual / double(freedom);
  for (int i = 0; i < regressors; ++i)
    for (int j = 0; j < regressors; ++j) fit.covariance[i][j] = variance * inverse[i][j];
  return fit;
}

FittedRate rate_of(const SlopeFit& fit, int i) {
  return {fit.slope[i], std::sqrt(std::max(0.0, fit.covariance[i][i]))};
}

bool clear(const FittedRate& rate, double negligible) {
  return rate.ns_per_byte > kContentionSignificance * rate.standard_error &&
         rate.ns_per_byte > negligible;
}

// Whether at least two runs reduce a good part of their bytes on each side of
// the knee: a quarter of the most any run does there, and a twentieth of the
// most any run reduces during backward. A rate that only one run shows would
// absorb that run's own noise (a slow period of the machine slows both its
// ranks at once), which the standard errors do not see; and a few hundred kB
// that a slow rank fits into its backward's end would read as a steep rate.
bool both_sides_supported(const std::vector<RunSample>& samples) {
  double most_in_all = 0;
  for (const RunSample& sample : samples)
    most_in_all = std::max(most_in_all, sample.x[0] + sample.x[1]);
  for (const int side : {0, 1}) {
    double most = 0;
    for (const RunSample& sample : samples) most = std::max(most, sample.x[side]);
    const double good_part = std::max(0.25 * most, 0.05 * most_in_all);
    std::set<std::int64_t> runs;
    for (const RunSample& sample : samples)
      if (sample.x[side] > 0 && sample.x[side] >= good_part) runs.insert(sample.run);
    if (runs.size() < 2) return false;
  }
  return true;
}

// The two-rate fit with the least residual over the knees between consecutive
// message sizes that ran during backward, where two runs support each rate,
// when its rates differ clearly.
struct KneeSearch {
  ContentionFit::Knee knee;
  SlopeFit fit;
};

std::optional<KneeSearch> search_knee(const std::vector<RecordBytes>& records) {
  std::set<double> sizes;
  for (const RecordBytes& record : records)
    for (std::size_t i = 0; i < record.sizes.size(); ++i)
      if (record.reduced_up_to[i] > (i ? record.reduced_up_to[i - 1] : 0.0))
        sizes.insert(record.sizes[i]);
  std::optional<KneeSearch> best;
  double best_residual = INFINITY;
  for (auto it = sizes.begin(); it != sizes.end() && std::next(it) != sizes.end(); ++it) {
    const double knee = std::sqrt(*it * *std::next(it));
    const std::vector<RunSample> samples = run_samples(records, knee);
    if (!both_sides_supported(samples)) continue;
    const std::optional<SlopeFit> fit = fit_slopes(samples, 2);
    if (!fit || fit->residual >= best_residual) continue;
    best_residual = fit->residual;
    const double difference = fit->slope[1] - fit->slope[0];
    const double spread = std::sqrt(
        std::max(0.0, fit->covariance[0][0] + fit->covariance[1][1] - 2 * fit->covariance[0][1]));
    best.reset();
    if (std::abs(difference) > kContentionSignificance * spread)
      best = KneeSearch{{knee, *it, *std::next(it), rate_of(*fit, 0), rate_of(*fit, 1)}, *fit};
  }
  return best;
}

// The squared error of a fit's predictions for `samples`.
double prediction_error(const SlopeFit& fit, const std::vector<RunSample>& samples) {
  double error = 0;
  for (const RunSample& sample : samples)
    if (const std::optional<double> predicted = fit.predict(sample))
      error += (*predicted - sample.wall) * (*predicted - sample.wall);
  return error;
}

// Whether the knee search predicts runs it did not see better than one rate:
// each run left out in turn, both fitted on the others (the search finding its
// own knee, or none and then one rate), and the left-out run's backward
// predicted. Searching many knees finds one that fits the noise of a few runs
// by chance; such a knee does not predict the next run.
bool knee_predicts_better(const std::vector<RecordBytes>& records) {
  std::set<std::int64_t> runs;
  for (const RecordBytes& record : records) runs.insert(record.run);
  double uniform_error = 0, knee_error = 0;
  for (const std::int64_t run : runs) {
    std::vector<RecordBytes> seen, unseen;
    for (const RecordBytes& record : records) (record.run == run ? unseen : seen).push_back(record);
    const std::optional<SlopeFit> uniform = fit_slopes(run_samples(seen, INFINITY), 1);
    if (!uniform) return false;
    const double error = prediction_error(*uniform, run_samples(unseen, INFINITY));
    uniform_error += error;
    const std::optional<KneeSearch> search = search_knee(seen);
    knee_error +=
        search ? prediction_error(search->fit, run_samples(unseen, search->knee.bytes)) : error;
  }
  return knee_error < uniform_error;
}

}  // namespace

double bytes_reduced(const BackwardRecord& record, double t_ns) {
  double bytes = 0;
  for (const BackwardRecord::Allreduce& allreduce : record.allreduces)
    bytes += allreduce.bytes * reduced_fraction(allreduce, t_ns);
  return bytes;
}

double own_progress(const BackwardRecord& record, double t_ns, const ContentionLoss& loss) {
  double lost = 0;
  for (const BackwardRecord::Allreduce& allreduce : record.allreduces)
    lost += loss.lost_ns(allreduce.bytes, allreduce.bytes * reduced_fraction(allreduce, t_ns));
  return t_ns - lost;
}

bool ContentionFit::determined() const {
  return used() ||
         (uniform && uniform->ns_per_byte + kContentionSignificance * uniform->standard_error <=
                         negligible_ns_per_byte);
}

ContentionFit fit_contention(const std::vector<const BackwardRecord*>& pointers,
                             double negligible_ns_per_byte) {
  std::vector<RecordBytes> records;
  std::set<std::int64_t> runs;
  for (const BackwardRecord* record : pointers) {
    records.emplace_back(*record);
    runs.insert(record->run);
  }
  const std::vector<RunSample> samples = run_samples(records, INFINITY);
  ContentionFit fit;
  fit.negligible_ns_per_byte = negligible_ns_per_byte;
  fit.runs = runs.size();
  fit.samples = samples.size();
  if (const std::optional<SlopeFit> uniform = fit_slopes(samples, 1))
    fit.uniform = rate_of(*uniform, 0);
  if (fit.uniform)
    if (const std::optional<KneeSearch> search = search_knee(records);
        search && knee_predicts_better(records))
      fit.knee = search->knee;
  if (fit.knee && (clear(fit.knee->below, negligible_ns_per_byte) ||
                   clear(fit.knee->above, negligible_ns_per_byte))) {
    fit.loss = {std::max(0.0, fit.knee->below.ns_per_byte),
                std::max(0.0, fit.knee->above.ns_per_byte), fit.knee->bytes};
  } else if (fit.uniform && clear(*fit.uniform, negligible_ns_per_byte)) {
    fit.loss = ContentionLoss::uniform(fit.uniform->ns_per_byte);
  }
  return fit;
}

GradientProfile own_progress_profile(const std::vector<BackwardRecord>& records,
                                     std::vector<std::uint64_t> bytes, const ContentionLoss& loss) {
  std::map<std::int64_t, std::vector<const BackwardRecord*>> steps;
  for (const BackwardRecord& record : records) steps[record.step].push_back(&record);
  const std::size_t params = bytes.size();
  std::vector<std::vector<double>> ready(params);  // per parameter, per step
  std::vector<double> tails;
  for (const auto& [step, ranks] : steps) {
    double last_ready = 0, end = 0;
    for (std::size_t p = 0; p < params; ++p) {
      double latest = -INFINITY;
      for (const BackwardRecord* record : ranks)
        latest = std::max(latest, own_progress(*record, record->ready_ns[p], loss));
      ready[p].push_back(latest);
      last_ready = std::max(last_ready, latest);
    }
    for (const BackwardRecord* record : ranks)
      end = std::max(end, own_progress(*record, record->end_ns, loss));
    tails.push_back(std::max(0.0, end - last_ready));
  }
  GradientProfile profile;
  profile.bytes = std::move(bytes);
  for (std::vector<double>& values : ready) profile.ready_ns.push_back(median(std::move(values)));
  profile.backward_end_ns = profile.last_ready_ns() + (tails.empty() ? 0 : median(tails));
  profile.backward_loss = loss;
  return profile;
}

}  // namespace parity::analyzer
