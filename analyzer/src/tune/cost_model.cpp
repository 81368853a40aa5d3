#include "parity/analyzer/tune/cost_model.hpp"

#include <algorithm>
#include <memory>

namespace parity::analyzer {

CostModel CostModel::measured(CostTable table, std::int64_t traced_ranks) {
  CostModel model;
  model.params_ = link_from_ring_line(table.line(), traced_ranks);
  model.table_ = std::move(table);
  model.traced_ranks_ = traced_ranks;
  return model;
}

CostModel CostModel::preset(Link link) {
  CostModel model;
  model.link_ = link;
  model.params_ = preset_link(link);
  return model;
}

CostFunction CostModel::at(AllreduceAlgorithm algorithm, std::int64_t ranks) const {
  if (ranks < 2) return [](double) { return 0.0; };  // one rank reduces nothing
  const LinkParams link = params_;
  if (!table_) return [=](double bytes) { return allreduce_time(algorithm, link, ranks, bytes); };
  const auto table = std::make_shared<const CostTable>(*table_);
  const std::int64_t traced = traced_ranks_;
  return [=](double bytes) {
    return std::max(0.0, table->at(bytes) + allreduce_time(algorithm, link, ranks, bytes) -
                             allreduce_time(AllreduceAlgorithm::kRing, link, traced, bytes));
  };
}

}  // namespace parity::analyzer
