#include "parity/analyzer/tune/cost_model.hpp"

#include <algorithm>
#include <memory>

namespace parity::analyzer {
namespace {

// A measured table moved from `traced` ranks to `ranks` under `algorithm`.
CostFunction moved_table(const CostTable& measured, AllreduceAlgorithm algorithm,
                         const LinkParams& link, std::int64_t ranks, std::int64_t traced) {
  const auto table = std::make_shared<const CostTable>(measured);
  return [=](double bytes) {
    return std::max(0.0, table->at(bytes) + allreduce_time(algorithm, link, ranks, bytes) -
                             allreduce_time(AllreduceAlgorithm::kRing, link, traced, bytes));
  };
}

}  // namespace

CostModel CostModel::measured(CostTable idle, std::optional<CostTable> busy,
                              std::int64_t traced_ranks) {
  CostModel model;
  model.params_ = link_from_ring_line(idle.line(), traced_ranks);
  model.table_ = std::move(idle);
  model.busy_table_ = std::move(busy);
  model.traced_ranks_ = traced_ranks;
  return model;
}

CostModel CostModel::preset(Link link) {
  CostModel model;
  model.link_ = link;
  model.params_ = preset_link(link);
  return model;
}

AllreduceCost CostModel::at(AllreduceAlgorithm algorithm, std::int64_t ranks) const {
  const LinkParams link = params_;
  CostFunction idle, busy;
  if (ranks < 2) {
    idle = [](double) { return 0.0; };  // one rank reduces nothing
  } else if (!table_) {
    idle = [=](double bytes) { return allreduce_time(algorithm, link, ranks, bytes); };
  } else {
    idle = moved_table(*table_, algorithm, link, ranks, traced_ranks_);
    if (busy_table_) {
      const CostFunction moved = moved_table(*busy_table_, algorithm, link, ranks, traced_ranks_);
      busy = [=](double bytes) { return std::max(moved(bytes), idle(bytes)); };
    }
  }
  if (!busy) busy = idle;
  return {busy, idle};
}

}  // namespace parity::analyzer
