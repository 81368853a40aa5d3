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
// Why bytes and not time: on the development VM, 161 unfused AllReduces
// beside all 73 ms of backward (17.5 MB in all) lengthened it by 3 %, DDP's
// five buckets beside 62 ms of it (86 MB) by 18 % (docs/results.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "parity/analyzer/tune/bucket_schedule.hpp"

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
// Backward's own progress at wall time `t_ns` when it loses `loss_ns_per_byte`
// to every byte reduced beside it.
double own_progress(const BackwardRecord& record, double t_ns, double loss_ns_per_byte);

struct ContentionFit {
  // The loss used: the fit when it stands clear of its noise, else 0.
  double loss_ns_per_byte = 0;
  // The fitted loss and its standard error; none without two runs whose
  // bytes reduced during backward differ on some rank, or without a degree
  // of freedom left.
  std::optional<double> fitted_ns_per_byte, standard_error;
  std::size_t runs = 0, samples = 0;  // samples: (run, rank) medians fitted
  // A loss below this is negligible (the caller's scale: e.g. 2 % of
  // backward over a step's gradient bytes).
  double negligible_ns_per_byte = 0;
  bool used() const { return loss_ns_per_byte > 0; }
  // Whether the fit tells anything: a loss, or a negligible one at most
  // (fitted + kContentionSignificance standard errors).
  bool determined() const;
};

// A fit is taken when it is this many standard errors from 0.
inline constexpr double kContentionSignificance = 3.0;

// Over the records of every run of one model (several runs: several splits).
ContentionFit fit_contention(const std::vector<const BackwardRecord*>& records,
                             double negligible_ns_per_byte);

// The ready profile of one run's records: per parameter and step backward's
// own progress at the gradient's ready time, the latest rank's, then the
// median over steps; backward's end likewise, as the median over steps of
// how long backward runs on after its last gradient. Carries the loss.
GradientProfile own_progress_profile(const std::vector<BackwardRecord>& records,
                                     std::vector<std::uint64_t> bytes, double loss_ns_per_byte);

}  // namespace parity::analyzer
