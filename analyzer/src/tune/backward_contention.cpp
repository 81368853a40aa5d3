#include "parity/analyzer/tune/backward_contention.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "parity/analyzer/profile/distribution.hpp"

namespace parity::analyzer {
namespace {

double median(std::vector<double> values) { return distribution_of(values).median_ns; }

}  // namespace

double bytes_reduced(const BackwardRecord& record, double t_ns) {
  double bytes = 0;
  for (const BackwardRecord::Allreduce& allreduce : record.allreduces) {
    if (allreduce.start_ns >= t_ns) continue;
    const double duration = allreduce.end_ns - allreduce.start_ns;
    bytes += duration <= 0 || allreduce.end_ns <= t_ns
                 ? allreduce.bytes
                 : allreduce.bytes * (t_ns - allreduce.start_ns) / duration;
  }
  return bytes;
}

double own_progress(const BackwardRecord& record, double t_ns, double loss_ns_per_byte) {
  return t_ns - loss_ns_per_byte * bytes_reduced(record, t_ns);
}

bool ContentionFit::determined() const {
  return used() || (fitted_ns_per_byte && standard_error &&
                    *fitted_ns_per_byte + kContentionSignificance * *standard_error <=
                        negligible_ns_per_byte);
}

ContentionFit fit_contention(const std::vector<const BackwardRecord*>& records,
                             double negligible_ns_per_byte) {
  // Per run and rank, per step: backward's wall duration, bytes reduced during it.
  std::map<std::pair<std::int64_t, std::int64_t>,
           std::pair<std::vector<double>, std::vector<double>>>
      steps;
  for (const BackwardRecord* record : records) {
    auto& [walls, bytes] = steps[{record->rank, record->run}];
    walls.push_back(record->end_ns);
    bytes.push_back(bytes_reduced(*record, record->end_ns));
  }
  // Per rank: (median wall, median bytes) per run.
  std::map<std::int64_t, std::vector<std::pair<double, double>>> ranks;
  std::set<std::int64_t> runs;
  for (auto& [key, samples] : steps) {
    ranks[key.first].emplace_back(median(std::move(samples.first)),
                                  median(std::move(samples.second)));
    runs.insert(key.second);
  }
  ContentionFit fit;
  fit.negligible_ns_per_byte = negligible_ns_per_byte;
  fit.runs = runs.size();
  // Each rank's mean: its intercept.
  std::vector<std::pair<double, double>> means;
  double sxx = 0, sxy = 0;
  for (const auto& [rank, samples] : ranks) {
    double wall = 0, bytes = 0;
    for (const auto& [w, b] : samples) wall += w, bytes += b;
    means.emplace_back(wall / double(samples.size()), bytes / double(samples.size()));
    for (const auto& [w, b] : samples) {
      sxx += (b - means.back().second) * (b - means.back().second);
      sxy += (b - means.back().second) * (w - means.back().first);
    }
    fit.samples += samples.size();
  }
  // Degrees of freedom: one intercept per rank and the slope.
  if (sxx <= 0 || fit.samples < means.size() + 2) return fit;
  const double slope = sxy / sxx;
  double residual = 0;
  auto mean = means.begin();
  for (const auto& [rank, samples] : ranks) {
    for (const auto& [w, b] : samples) {
      const double error = (w - mean->first) - slope * (b - mean->second);
      residual += error * error;
    }
    ++mean;
  }
  fit.fitted_ns_per_byte = slope;
  fit.standard_error = std::sqrt(residual / double(fit.samples - means.size() - 1) / sxx);
  if (slope > kContentionSignificance * *fit.standard_error && slope > negligible_ns_per_byte)
    fit.loss_ns_per_byte = slope;
  return fit;
}

GradientProfile own_progress_profile(const std::vector<BackwardRecord>& records,
                                     std::vector<std::uint64_t> bytes, double loss_ns_per_byte) {
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
        latest = std::max(latest, own_progress(*record, record->ready_ns[p], loss_ns_per_byte));
      ready[p].push_back(latest);
      last_ready = std::max(last_ready, latest);
    }
    for (const BackwardRecord* record : ranks)
      end = std::max(end, own_progress(*record, record->end_ns, loss_ns_per_byte));
    tails.push_back(std::max(0.0, end - last_ready));
  }
  GradientProfile profile;
  profile.bytes = std::move(bytes);
  for (std::vector<double>& values : ready) profile.ready_ns.push_back(median(std::move(values)));
  profile.backward_end_ns = profile.last_ready_ns() + (tails.empty() ? 0 : median(tails));
  profile.backward_ns_lost_per_byte = loss_ns_per_byte;
  return profile;
}

}  // namespace parity::analyzer
