#include "mindspore/mindspore_collective.hpp"

#include <string>

namespace parity::importers::trace {

void add_mindspore_collective(TraceAssembly& assembly, profiler::CollectiveOp op,
                              std::int64_t stream, std::int64_t start_ns, std::int64_t dur_ns,
                              std::int64_t rank) {
  profiler::CollectiveRow row;
  row.track = assembly.track("communication stream " + std::to_string(stream),
                             profiler::TrackKind::kCollective);
  row.start_ns = start_ns;
  row.dur_ns = dur_ns;
  row.op = op;
  row.rank = rank;
  assembly.add_collective(std::move(row));
}

}  // namespace parity::importers::trace
