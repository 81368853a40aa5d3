// The rows of a trace being imported, gathered whole and written at the end:
// a foreign file's events come in no promised order, while a Parity trace
// wants each range's parent and depth, range ids that grow in begin order,
// and every time on one clock from one origin (the earliest event). Rows
// cost about 48 bytes each here, so a trace of millions of events fits in
// a few hundred MB however large its text was.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parity/profiler/trace_rows.hpp"
#include "row_stream.hpp"

namespace parity::importers::trace {

using profiler::Category;
using profiler::NameId;
using profiler::TrackId;

class TraceAssembly {
 public:
  // A range as added: times on the file's clock.
  struct Range {
    std::int64_t start_ns, dur_ns;
    std::optional<std::int64_t> arg;
    TrackId track;
    NameId name;
    Category category;
    std::uint32_t sequence;  // arrival order, the tie-break of equal ranges
  };

  TraceAssembly();
  // A trace that write() did not finish is removed.
  ~TraceAssembly();
  TraceAssembly(const TraceAssembly&) = delete;
  TraceAssembly& operator=(const TraceAssembly&) = delete;

  // From here on GPU activity and API calls go into the trace `out` as they
  // come (row_stream.hpp), not at write(), which must be given the same path.
  void stream_to(const std::filesystem::path& out) { stream_path_ = out; }

  NameId name(std::string_view text);
  // The track of a key (an importer's own spelling of a lane), made on first use.
  TrackId track(const std::string& key, profiler::TrackKind kind);
  void describe_track(TrackId track, std::string_view label, std::optional<std::int64_t> pid,
                      std::optional<std::int64_t> tid, std::optional<std::int64_t> device = {},
                      std::optional<std::int64_t> stream = {});
  bool has_label(TrackId track) const;  // described, not only keyed

  // Times are on the file's clock, in ns; write() moves them to the trace's.
  void add_range(TrackId track, std::int64_t start_ns, std::int64_t dur_ns, NameId name,
                 Category category, std::optional<std::int64_t> arg = {});
  void add_instant(TrackId track, std::int64_t ts_ns, NameId name, Category category);
  void add_counter(TrackId track, std::int64_t ts_ns, double value);
  void add_gpu_activity(profiler::GpuActivityRow row);  // times on the file's clock
  void add_api_call(profiler::ApiCallRow row);
  // Its step and bucket are filled in by write(): the step whose range holds
  // its start, and its place among its lane's collectives of that step.
  void add_collective(profiler::CollectiveRow row);
  void add_queue_sample(const profiler::QueueSampleRow& row);  // its time on the file's clock
  void set_meta(std::string key, std::string value) { meta_[std::move(key)] = std::move(value); }

  std::size_t range_count() const { return ranges_.size(); }
  // What was added so far, for passes that derive more from it.
  const std::vector<Range>& ranges() const { return ranges_; }
  std::string_view text(NameId name) const { return strings_.at(name); }
  // No rows of any kind yet.
  bool empty() const {
    return ranges_.empty() && instants_.empty() && counters_.empty() && activity_count_ == 0 &&
           api_call_count_ == 0 && collectives_.empty();
  }
  std::optional<std::int64_t> earliest_ns() const { return earliest_; }

  // Writes the trace to `out`, which must not exist. Steps come from the
  // ranges of category kStep (their arg is the step number).
  void write(const std::filesystem::path& out);

 private:
  void saw(std::int64_t ts_ns);
  RowStream* stream();  // the stream, begun on first use; null when not streaming
  std::vector<profiler::RangeRow> nested_ranges(std::int64_t origin) const;

  std::vector<std::string> strings_;
  // Looked up by string_view, so that a name seen before costs no allocation.
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::unordered_map<std::string, NameId, TextHash, std::equal_to<>> string_ids_;
  std::map<std::string, TrackId> track_ids_;
  std::vector<profiler::TrackRow> tracks_;
  std::vector<bool> described_;  // given a label by describe_track
  std::vector<Range> ranges_;
  std::vector<profiler::InstantRow> instants_;
  std::vector<profiler::CounterRow> counters_;
  std::vector<profiler::GpuActivityRow> activities_;  // when not streamed
  std::vector<profiler::ApiCallRow> api_calls_;
  std::int64_t activity_count_ = 0, api_call_count_ = 0;
  std::optional<std::filesystem::path> stream_path_;
  std::unique_ptr<RowStream> stream_;
  bool written_ = false;
  std::vector<profiler::CollectiveRow> collectives_;
  std::vector<profiler::QueueSampleRow> queue_samples_;
  std::map<std::string, std::string> meta_;
  std::optional<std::int64_t> earliest_;
};

}  // namespace parity::importers::trace
