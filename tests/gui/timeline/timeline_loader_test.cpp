// load_timeline: lanes, rows and counts of a trace with known contents,
// overlapping kernels packed into a second row, launch <-> kernel
// correlation, the synthetic trace's counts against SQL, cancel, and bad
// files refused with parity::Error naming the file.
#include "parity/gui/timeline/timeline_loader.hpp"

#include <sqlite3.h>

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "parity/analyzer/synth/synth.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/sqlite.hpp"
#include "qt_test_main.hpp"
#include "timeline_trace.hpp"

using namespace parity::gui;

namespace {

const Lane& lane_titled(const TimelineData& data, const std::string& title) {
  for (const Lane& lane : data.lanes)
    if (lane.title == title) return lane;
  throw std::runtime_error("no lane " + title);
}

std::int64_t sql_count(const std::filesystem::path& path, const std::string& table) {
  namespace sql = parity::profiler::sql;
  sql::Database db(path, sql::Database::Mode::kReadOnly);
  return sql::query_int(db, "SELECT count(*) FROM " + table);
}

}  // namespace

class TimelineLoaderTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = std::filesystem::path(dir_.path().toStdString()) / "known.db";
    timeline_trace::write(path_);
  }

  void lanes_rows_and_counts() {
    const TimelineData data = load_timeline(path_);
    QCOMPARE(data.events, static_cast<std::uint64_t>(timeline_trace::kEvents));
    QCOMPARE(data.lanes.size(), std::size_t{5});
    // Host threads first, then GPU streams, collectives, counters, queues.
    QCOMPARE(data.lanes[0].title, std::string("main"));
    QCOMPARE(data.lanes[1].title, std::string("GPU 0 stream 7"));
    QCOMPARE(data.lanes[2].kind, LaneKind::kCollective);

    const Lane& main = lane_titled(data, "main");
    QCOMPARE(main.rows.size(), std::size_t{4});  // step, phase, op, CUDA API
    QCOMPARE(main.rows[0].title, std::string("step"));
    QCOMPARE(main.rows[0].size(), std::size_t{3});
    QCOMPARE(main.rows[1].title, std::string("phase"));
    QCOMPARE(main.rows[1].size(), std::size_t{6});
    QCOMPARE(main.rows[2].title, std::string("op"));
    QCOMPARE(main.rows[2].size(), std::size_t{12});
    QCOMPARE(main.rows[3].source, EventSource::kApiCall);
    QCOMPARE(main.rows[3].size(), std::size_t{12});
    QCOMPARE(data.name(main.rows[2].names[0]), std::string("conv"));
    QCOMPARE(main.rows[2].ends[0] - main.rows[2].starts[0], timeline_trace::kOpNs);

    // The overlapping kernel cannot share a row with conv_kernel #1.
    const Lane& stream = lane_titled(data, "GPU 0 stream 7");
    QCOMPARE(stream.rows.size(), std::size_t{2});
    QCOMPARE(stream.rows[0].size(), std::size_t{12});
    QCOMPARE(stream.rows[1].size(), std::size_t{1});
    QCOMPARE(data.name(stream.rows[1].names[0]), std::string("overlap_kernel"));

    const Lane& lane = lane_titled(data, "nccl");
    QCOMPARE(data.name(lane.rows[0].names[0]), std::string("allreduce"));
    const Lane& loss = lane_titled(data, "loss");
    QCOMPARE(loss.counters[0].values, (std::vector<double>{3, 2, 1}));
    QCOMPARE(loss.counters[0].min, 1.0);
    const Lane& queue = lane_titled(data, "train");
    QCOMPARE(queue.counters[0].values, (std::vector<double>{0, 1, 2, 3}));

    QCOMPARE(data.steps.size(), std::size_t{3});
    QCOMPARE(data.steps[2].start_ns, 2 * timeline_trace::kStepNs);
    QCOMPARE(data.extent, (TimeWindow{0, 3 * timeline_trace::kStepNs}));
    QVERIFY(data.memory_bytes() > 0);
  }

  void launch_and_kernel_correlate() {
    const TimelineData data = load_timeline(path_);
    const EventRef launch{0, 0, 3, 5};  // main's CUDA API row, 6th call
    const auto kernel = data.correlated(launch);
    QVERIFY(kernel.has_value());
    QCOMPARE(kernel->lane, 1);
    QCOMPARE(kernel->row, 0);
    QCOMPARE(kernel->index, 5);
    const auto back = data.correlated(*kernel);
    QVERIFY(back.has_value());
    QCOMPARE(*back, launch);
    QVERIFY(!data.correlated(EventRef{0, 0, 2, 0}).has_value());  // an op range has none
  }

  void api_calls_can_follow_the_first_paint() {
    const TimelineData full = load_timeline(path_);
    TimelineData first = load_timeline(path_, nullptr, TimelineParts::kWithoutApiCalls);
    QCOMPARE(lane_titled(first, "main").rows.size(), std::size_t{3});
    QCOMPARE(first.events, full.events - 12);
    merge_api_calls(first, read_api_calls(path_));
    QCOMPARE(first.events, full.events);
    QCOMPARE(first.extent, full.extent);
    const Lane& main = lane_titled(first, "main");
    QCOMPARE(main.rows.size(), std::size_t{4});
    QCOMPARE(main.rows[3].starts, lane_titled(full, "main").rows[3].starts);
    QVERIFY(first.correlated(EventRef{0, 0, 3, 5}).has_value());
  }

  void synthetic_trace_counts_match_sql() {
    const auto path = std::filesystem::path(dir_.path().toStdString()) / "synth.db";
    parity::analyzer::SynthOptions options;
    options.events = 60'000;
    parity::analyzer::write_synth_trace(options, path);
    const TimelineData data = load_timeline(path);
    std::int64_t expected = 0;
    for (const char* table :
         {"range", "api_call", "gpu_activity", "collective", "instant", "counter", "queue_sample"})
      expected += sql_count(path, table);
    QCOMPARE(static_cast<std::int64_t>(data.events), expected);
    QCOMPARE(static_cast<std::int64_t>(data.steps.size()), sql_count(path, "step"));
    // Every row keeps the order the painter's binary searches need.
    for (const Lane& lane : data.lanes)
      for (const EventRow& row : lane.rows)
        for (std::size_t i = 1; i < row.size(); ++i) QVERIFY(row.starts[i] >= row.ends[i - 1]);
  }

  void cancel_stops_loading() {
    auto flag = std::make_shared<std::atomic<bool>>(true);
    TaskControl control(flag, {});
    bool cancelled = false;
    try {
      (void)load_timeline(path_, &control);
    } catch (const TaskCancelled&) {
      cancelled = true;
    }
    QVERIFY(cancelled);
  }

  void bad_files_are_refused() {
    const std::filesystem::path dir = dir_.path().toStdString();
    const auto text = dir / "notes.db";
    std::ofstream(text) << "this is not a database\n";
    const auto truncated = dir / "truncated.db";
    {
      std::ifstream in(path_, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), {});
      std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    }
    const auto other = dir / "other.db";
    {
      sqlite3* db = nullptr;
      sqlite3_open(other.c_str(), &db);
      sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
      sqlite3_close(db);
    }
    for (const auto& bad : {dir / "missing.db", text, truncated, other}) {
      try {
        (void)load_timeline(bad);
        QFAIL(qPrintable(QString::fromStdString("accepted " + bad.string())));
      } catch (const parity::Error& e) {
        QVERIFY2(std::string(e.what()).find(bad.filename().string()) != std::string::npos,
                 e.what());
      }
    }
  }

 private:
  QTemporaryDir dir_;
  std::filesystem::path path_;
};

PARITY_QT_TEST(TimelineLoaderTest, kCore)
#include "timeline_loader_test.moc"
