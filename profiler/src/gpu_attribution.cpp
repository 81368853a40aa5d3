#include "parity/profiler/gpu_attribution.hpp"

#include <algorithm>
#include <unordered_map>

namespace parity::profiler {
namespace {

struct ApiCall {
  TrackId track = 0;
  std::int64_t start_ns = 0, end_ns = 0, id = 0;
  NameId name = 0;
  std::int64_t correlation = 0;
  HostContext context;
};

struct HostRange {
  std::int64_t start_ns = 0, end_ns = 0, id = 0;
  Category category = Category::kUser;
};

std::vector<ApiCall> load_api_calls(sql::Database& db) {
  std::vector<ApiCall> calls;
  sql::Statement rows(db,
                      "SELECT track_id, start_ns, dur_ns, id, name_id, correlation_id FROM "
                      "api_call WHERE correlation_id IS NOT NULL ORDER BY track_id, start_ns, id");
  while (rows.step())
    calls.push_back(ApiCall{static_cast<TrackId>(rows.column_int(0)),
                            rows.column_int(1),
                            rows.column_int(1) + rows.column_int(2),
                            rows.column_int(3),
                            static_cast<NameId>(rows.column_int(4)),
                            rows.column_int(5),
                            {}});
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
  sql::Statement rows(db,
                      "SELECT start_ns, dur_ns, id, category FROM range WHERE track_id = ? "
                      "ORDER BY start_ns, id");
  auto call = calls.begin();
  while (call != calls.end()) {
    const TrackId track = call->track;
    rows.bind(1, static_cast<std::int64_t>(track));
    std::vector<HostRange> open;
    bool more_ranges = rows.step();
    for (; call != calls.end() && call->track == track; ++call) {
      for (; more_ranges && rows.column_int(0) <= call->start_ns; more_ranges = rows.step()) {
        const HostRange range{rows.column_int(0), rows.column_int(0) + rows.column_int(1),
                              rows.column_int(2), static_cast<Category>(rows.column_int(3))};
        while (!open.empty() && open.back().end_ns < range.start_ns) open.pop_back();
        open.push_back(range);
      }
      while (!open.empty() && open.back().end_ns < call->end_ns) open.pop_back();
      call->context = context_of(open);
    }
    rows.reset();
  }
}

}  // namespace

GpuAttribution attribute_gpu_work(TraceReader& trace) {
  sql::Database& db = trace.db();
  std::vector<ApiCall> calls = load_api_calls(db);
  find_host_contexts(db, calls);
  std::unordered_map<std::int64_t, const ApiCall*> call_of_correlation;
  call_of_correlation.reserve(calls.size());
  for (const ApiCall& call : calls) call_of_correlation.emplace(call.correlation, &call);

  GpuAttribution result;
  sql::Statement rows(db,
                      "SELECT track_id, start_ns, id, kind, name_id, correlation_id FROM "
                      "gpu_activity ORDER BY track_id, start_ns, id");
  while (rows.step()) {
    GpuWorkAttribution work;
    work.track = static_cast<TrackId>(rows.column_int(0));
    work.start_ns = rows.column_int(1);
    work.id = rows.column_int(2);
    work.kind = static_cast<GpuActivityKind>(rows.column_int(3));
    work.name = static_cast<NameId>(rows.column_int(4));
    ++result.summary.activities;
    if (!rows.column_is_null(5)) {
      if (const auto it = call_of_correlation.find(rows.column_int(5));
          it != call_of_correlation.end()) {
        const ApiCall& call = *it->second;
        work.launch_row = call.id;
        work.launch_name = call.name;
        work.launch_track = call.track;
        work.context = call.context;
        ++result.summary.with_launch;
        if (work.context.layer) ++result.summary.with_layer;
        if (work.context.phase) ++result.summary.with_phase;
      }
    }
    result.work.push_back(work);
  }
  return result;
}

}  // namespace parity::profiler
