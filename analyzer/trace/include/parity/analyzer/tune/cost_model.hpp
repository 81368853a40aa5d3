// CostModel: where the tuner's AllReduce costs come from, the run's measured
// cost tables or a preset link, and the costs it gives at any number of ranks
// under the ring or the tree model (docs/tune-allreduce.md):
//   preset     the model itself, with the preset's alpha and beta, the same
//              whether backward runs beside the AllReduce or not;
//   measured   two tables: `idle`, AllReduces with nothing else running (the
//              trainer's calibration sweep, and buckets reduced after
//              backward), and `busy`, AllReduces that ran during backward and
//              shared the rank's cores with it (absent: the idle table). Each
//              moves from the traced world size p to N ranks by the model:
//              table(n) + model_N(n) - ring_p(n), with alpha and beta from the
//              idle table's line read as a ring at p. At N = p under the ring
//              model that is the table itself; elsewhere the measured sizes
//              keep their deviation from the line. Never below 0, and busy
//              never below idle.
#pragma once

#include <cstdint>
#include <optional>

#include "parity/analyzer/tune/allreduce_model.hpp"
#include "parity/analyzer/tune/bucket_schedule.hpp"
#include "parity/analyzer/tune/cost_table.hpp"
#include "parity/analyzer/tune/link_preset.hpp"

namespace parity::analyzer {

class CostModel {
 public:
  // `traced_ranks` must be at least 2 (one rank reduces nothing).
  static CostModel measured(CostTable idle, std::optional<CostTable> busy,
                            std::int64_t traced_ranks);
  static CostModel preset(Link link);

  Link link() const { return link_; }
  const LinkParams& params() const { return params_; }
  const std::optional<CostTable>& table() const { return table_; }  // idle
  const std::optional<CostTable>& busy_table() const { return busy_table_; }
  std::int64_t traced_ranks() const { return traced_ranks_; }

  AllreduceCost at(AllreduceAlgorithm algorithm, std::int64_t ranks) const;

 private:
  Link link_ = Link::kMeasured;
  LinkParams params_;
  std::optional<CostTable> table_, busy_table_;
  std::int64_t traced_ranks_ = 0;
};

}  // namespace parity::analyzer
