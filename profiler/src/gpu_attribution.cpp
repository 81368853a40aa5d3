#include "parity/profiler/gpu_attribution.hpp"

#include <utility>

#include "parity/profiler/launch_join.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"

namespace parity::profiler {
namespace {

struct ApiCall {
  TrackId track = 0;
  std::int64_t start_ns = 0, end_ns = 0, id = 0;
  NameId name = 0;
  std::int64_t correlation_id = 0;
  HostContext context;
};

struct HostRange {
  std::int64_t start_ns = 0, end_ns = 0, id = 0;
  Category category = Category::kUser;
};

// The calls that can have launched GPU work, by (track, start).
std::vector<ApiCall> load_api_calls(sql::Database& db) {
  std::vector<ApiCall> calls;
  schema::for_each<schema::kTable<ApiCallRow>, &ApiCallRow::track, &ApiCallRow::start_ns,
                   &ApiCallRow::dur_ns, &ApiCallRow::id, &ApiCallRow::name,
                   &ApiCallRow::correlation_id>(
      db, "WHERE correlation_id IS NOT NULL ORDER BY track_id, start_ns, id",
      [&](const ApiCallRow& row) {
        calls.push_back(ApiCall{row.track,
                                row.start_ns,
                                row.start_ns + row.dur_ns,
                                row.id,
                                row.name,
                                *row.correlation_id,
                                {}});
      });
  return calls;
}

// The innermost open step, phase and layer ranges, from the top of the stack.
HostContext context_of(const std::vector<HostRange>& open) {
  HostContext context;
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    if (it->category == Category::kLayer && !context.layer) context.layer = it->id;
    if (it->category == Category::kPhase && !context.phase) context.phase = it->id;
    if (it->category == Category::kStep && !context.step) context.step = it->id;
  }
  return context;
}

// One sweep per thread track: ranges nest, so the ranges that contain a call
// are the ones still open (on the stack) when the sweep reaches the call.
void find_host_contexts(sql::Database& db, std::vector<ApiCall>& calls) {
  schema::Select<schema::kTable<RangeRow>, &RangeRow::start_ns, &RangeRow::dur_ns, &RangeRow::id,
                 &RangeRow::category>
      ranges(db, "WHERE track_id = ?1 ORDER BY start_ns, id");
  RangeRow row;
  auto call = calls.begin();
  while (call != calls.end()) {
    const TrackId track = call->track;
    ranges.statement().bind(1, static_cast<std::int64_t>(track));
    std::vector<HostRange> open;
    bool more_ranges = ranges.next(row);
    for (; call != calls.end() && call->track == track; ++call) {
      for (; more_ranges && row.start_ns <= call->start_ns; more_ranges = ranges.next(row)) {
        const HostRange range{row.start_ns, row.start_ns + row.dur_ns, row.id, row.category};
        while (!open.empty() && open.back().end_ns < range.start_ns) open.pop_back();
        open.push_back(range);
      }
      while (!open.empty() && open.back().end_ns < call->end_ns) open.pop_back();
      call->context = context_of(open);
    }
    ranges.reset();
  }
}

}  // namespace

GpuAttribution attribute_gpu_work(TraceReader& trace) {
  sql::Database& db = trace.db();
  std::vector<ApiCall> calls = load_api_calls(db);
  find_host_contexts(db, calls);
  const LaunchIndex<ApiCall> launches(std::move(calls));

  GpuAttribution result;
  using Row = StoredGpuActivityRow;
  schema::for_each<schema::kTable<Row>, &Row::track, &Row::start_ns, &Row::id, &Row::kind,
                   &Row::name, &Row::correlation_id>(
      db, "ORDER BY track_id, start_ns, id", [&](const Row& row) {
        GpuWorkAttribution work;
        work.track = row.track;
        work.start_ns = row.start_ns;
        work.id = row.id;
        work.kind = row.kind;
        work.name = row.name;
        ++result.summary.activities;
        if (const ApiCall* call = launches.find(row.correlation_id)) {
          work.launch_row = call->id;
          work.launch_name = call->name;
          work.launch_track = call->track;
          work.context = call->context;
          ++result.summary.with_launch;
          if (work.context.layer) ++result.summary.with_layer;
          if (work.context.phase) ++result.summary.with_phase;
        }
        result.work.push_back(work);
      });
  return result;
}

}  // namespace parity::profiler
