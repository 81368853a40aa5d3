#include "nsys/nsys_nvtx.hpp"

#include "nsys/nsys_step_name.hpp"

namespace parity::importers::trace {
namespace {

// ENUM_NSYS_EVENT_TYPE values of NVTX_EVENTS rows.
constexpr std::int64_t kCategory = 33, kMark = 34, kThread = 39, kPushPop = 59, kStartEnd = 60,
                       kNvtxtPushPop = 70, kNvtxtStartEnd = 71, kDomainCreate = 75,
                       kDomainDestroy = 76;

struct NvtxColumns {
  int start, end, type, text, text_id, thread;
  explicit NvtxColumns(NsysTable& table)
      : start(table.required({"start"})),
        end(table.column({"end"})),
        type(table.required({"eventType"})),
        text(table.column({"text"})),
        text_id(table.column({"textId"})),
        thread(table.column({"globalTid"})) {}
};

void add_range(NsysSource& source, TrackId track, std::int64_t start, std::int64_t duration,
               const std::string& name) {
  const auto step = nvtx_step_number(name);
  source.assembly().add_range(track, start, duration, source.assembly().name(name),
                              step ? Category::kStep : Category::kUser, step);
  source.count(step ? "steps (NVTX ranges named like steps)" : "NVTX ranges (user ranges)");
}

void read_event(NsysSource& source, NsysProcesses& processes, const NvtxColumns& columns,
                const NsysRow& row) {
  const std::int64_t type = row.integer_or(columns.type, -1);
  const std::int64_t start = row.integer_or(columns.start, 0);
  const auto end = row.integer(columns.end);
  const std::int64_t thread = row.integer_or(columns.thread, 0);
  // The message passed directly, else the registered string.
  const std::string name =
      row.text(columns.text).value_or(source.text(row.integer(columns.text_id)));
  switch (type) {
    case kMark:
      if (!nsys_time_in_range(start)) return source.skip("NVTX marks at impossible times");
      source.assembly().add_instant(processes.thread(thread), start, source.assembly().name(name),
                                    Category::kUser);
      return source.count("NVTX marks (instants)");
    case kPushPop:
    case kNvtxtPushPop:
    case kStartEnd:
    case kNvtxtStartEnd: {
      const auto duration = nsys_duration(start, end);
      if (!duration) return source.skip("NVTX ranges never ended");
      const bool nested = type == kPushPop || type == kNvtxtPushPop;
      const TrackId track = nested ? processes.thread(thread)
                                   : processes.lane(thread, "NVTX start/end ranges",
                                                    profiler::TrackKind::kHostThread);
      return add_range(source, track, start, *duration, name);
    }
    case kCategory:
    case kThread:
    case kDomainCreate:
    case kDomainDestroy:
      return source.skip(
          "NVTX names of categories, threads and domains (event types 33, 39, 75, 76)");
    default:
      return source.skip("NVTX events of type " + std::to_string(type));
  }
}

}  // namespace

void read_nsys_nvtx(NsysSource& source, NsysProcesses& processes) {
  auto table = source.table("NVTX_EVENTS");
  if (!table) return;
  const NvtxColumns columns(*table);
  table->for_each("start",
                  [&](const NsysRow& row) { read_event(source, processes, columns, row); });
}

}  // namespace parity::importers::trace
