// How much the AllReduces running beside backward slow it down, fitted from
// traces (docs/tune-allreduce.md). On a rank whose AllReduces share its cores
// with backward (MPI reducing on CPU threads, or kernels on the SMs) each byte
// reduced during backward takes some of backward's compute: backward lasts
//   wall = own + loss x (bytes reduced while it ran)
// with `loss` in ns per byte (an AllReduce that is partly during backward
// counts the same fraction of its bytes). Per rank backward's own duration is
// a constant; runs with other splits reduce other amounts during backward, and
// `loss` is the common slope of a least-squares fit over every run's median
// step with one intercept per rank. Steps of one run are not used on their
// own: a step that happens to compute slowly fits more bytes into its
// backward, which would read as slowdown. So the loss needs a second run with
// another split: the second tuning round (--costs-from).
//
// The loss may depend on the message size: the fit also tries two rates, one
// for messages up to a knee and one above (contention_loss.hpp), with the knee
// between two consecutive message sizes that ran during backward, wherever it
// fits best; it takes them when two runs support each, they differ by
// kContentionSignificance standard errors of their difference, and the knee
// predicts each run left out of the fit better than one rate does.
//
// Why bytes and not time: on the development VM, 161 unfused AllReduces
// beside all 73 ms of backward (17.5 MB in all) lengthened it by 3 %, DDP's
// five buckets beside 62 ms of it (86 MB) by 18 % (docs/results.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "parity/analyzer/tune/bucket_schedule.hpp"
#include "parity/analyzer/tune/contention_loss.hpp"

namespace parity::analyzer {

// One rank's backward in one step, in ns from its start: each parameter's
// gradient-ready time (forward order), backward's end, and the rank's
// AllReduces in the order they ran.
struct BackwardRecord {
  struct Allreduce {
    double start_ns = 0, end_ns = 0, bytes = 0;
  };
  std::int64_t run = 0, rank = 0, step = 0;  // run: 0 the tuned one, then --costs-from's
  std::vector<double> ready_ns;
  double end_ns = 0;
  std::vector<Allreduce> allreduces;
};

// The bytes the record's AllReduces reduced before `t_ns` (an AllReduce under
// way by the fraction of its time before it).
double bytes_reduced(const BackwardRecord& record, double t_ns);
// Backward's own progress at wall time `t_ns`: less what the AllReduces
// beside it took by then.
double own_progress(const BackwardRecord& record, double t_ns, const ContentionLoss& loss);

// A fitted loss a byte and its standard error.
struct FittedRate {
  double ns_per_byte = 0, standard_error = 0;
};

struct ContentionFit {
  // Two rates that fit better than one: the knee, the message sizes it lies
  // between, and the rates up to it and above.
  struct Knee {
    double bytes = 0, smaller_size = 0, larger_size = 0;
    FittedRate below, above;
  };
  // The loss used: the fit when it stands clear of its noise, else none.
  ContentionLoss loss;
  // One rate for every message size; none without two runs whose bytes
  // reduced during backward differ on some rank, or without a degree of
  // freedom left.
  std::optional<FittedRate> uniform;
  std::optional<Knee> knee;           // when two rates fit clearly better
  std::size_t runs = 0, samples = 0;  // samples: (run, rank) medians fitted
  // A loss below this is negligible (the caller's scale: e.g. 2 % of
  // backward over a step's gradient bytes).
  double negligible_ns_per_byte = 0;
  bool used() const { return loss.any(); }
  // Whether the fit tells anything: a loss, or a negligible one at most
  // (fitted + kContentionSignificance standard errors).
  bool determined() const;
};

// A fit is taken when it is this many standard errors from 0 (two rates: from
// each other).
inline constexpr double kContentionSignificance = 3.0;

// Over the records of every run of one model (several runs: several splits).
ContentionFit fit_contention(const std::vector<const BackwardRecord*>& records,
                             double negligible_ns_per_byte);

// The ready profile of one run's records: per parameter and step backward's
// own progress at the gradient's ready time, the latest rank's, then the
// median over steps; backward's end likewise, as the median over steps of
// how long backward runs on after its last gradient. Carries the loss.
GradientProfile own_progress_profile(const std::vector<BackwardRecord>& records,
                                     std::vector<std::uint64_t> bytes, const ContentionLoss& loss);

}  // namespace parity::analyzer
