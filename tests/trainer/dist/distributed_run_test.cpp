// `mpirun -np 2 parity-train train`, end to end: the ranks write one trace
// each, every gradient bucket of every step is a collective row on every
// rank with the parameter range the split asks for, the AllReduce calibration
// sweep precedes the first step, and a rank that fails
// stops the whole run with exit code 2 instead of leaving the others waiting.
// An overflow only rank 0 sees is skipped by both ranks.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <tuple>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "trace_counters.hpp"

namespace fs = std::filesystem;
namespace sql = parity::profiler::sql;
namespace schema = parity::profiler::schema;
using parity::profiler::CollectiveRow;
using parity::profiler::TraceReader;

namespace {

constexpr std::int64_t kSteps = 3;

fs::path write_config(const fs::path& folder, const std::string& extra = "") {
  const fs::path path = folder / "run.yaml";
  std::ofstream out(path);
  out << "net_name: resnet18\nclass_num: 4\ndataset: synthetic\nsynthetic_size: 64\n"
         "train_image_size: 16\nbatch_size: 8\nepoch_size: 1\nthreads: 1\nnum_workers: 1\n"
         "save_checkpoint: false\ndeterministic: true\n"
      << extra;
  return path;
}

// mpiexec with the environment of the other MPI tests (see CMakeLists.txt),
// and its own Open MPI session directory inside the test's folder: two
// mpiexec started at once under `ctest -j` both create the default
// /tmp/ompi.<host>.<uid>, and the loser fails in orte_init.
ProcessResult mpirun(const TempDir& dir, int ranks, std::vector<std::string> train_args) {
  std::vector<std::string> argv{"/usr/bin/env"};
  for (const char* variable : {PARITY_MPI_TEST_ENVIRONMENT}) argv.emplace_back(variable);
  argv.push_back("OMPI_MCA_orte_tmpdir_base=" + dir.path().string());
  for (const char* word : {PARITY_MPIEXEC, "-n", ""}) argv.emplace_back(word);
  argv.back() = std::to_string(ranks);
  argv.emplace_back(PARITY_TRAIN);
  argv.insert(argv.end(), train_args.begin(), train_args.end());
  return run_process(argv);
}

}  // namespace

TEST_CASE("a 2-rank traced run has every gradient bucket of every step on every rank", "[e2e]") {
  TempDir dir;
  const auto run = mpirun(dir, 2,
                          {"train", "--config", write_config(dir.path()).string(), "--max-steps",
                           std::to_string(kSteps), "--trace", (dir / "run.db").string(), "--set",
                           "allreduce_split=index:[20,40]", "--log-every", "1"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  // Only rank 0 logs: one line per step, once.
  CHECK_THAT(run.out, Catch::Contains("data parallel: Open MPI"));
  CHECK_THAT(run.out, Catch::Contains("3 gradient buckets (index:[20,40,61])"));
  CHECK(std::count(run.out.begin(), run.out.end(), '\n') < 12);

  using Row = std::tuple<std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t>;  // step, bucket, first, last
  std::set<Row> expected;
  for (std::int64_t step = 0; step < kSteps; ++step)
    for (const auto& [bucket, first, last] : {std::tuple{0, 0, 20}, {1, 21, 40}, {2, 41, 61}})
      expected.insert({step, bucket, first, last});
  for (int rank = 0; rank < 2; ++rank) {
    const fs::path path = dir / ("run.rank" + std::to_string(rank) + ".db");
    INFO(path.string());
    REQUIRE(fs::exists(path));
    TraceReader trace(path);
    CHECK(trace.meta_value("rank").value_or("") == std::to_string(rank));
    CHECK(trace.meta_value("world_size").value_or("") == "2");
    CHECK(trace.meta_value("trainer.allreduce_split").value_or("") == "index:[20,40]");
    CHECK(trace.meta_value("complete").value_or("") == "1");
    std::set<Row> rows;
    const std::string lane =
        " FROM collective c JOIN track t ON t.id = c.track_id JOIN string n ON n.id = t.name_id ";
    // The collectives on the track named `name`.
    const auto on_track = [](const std::string& name) {
      return "WHERE track_id IN (SELECT t.id FROM track t JOIN string n ON n.id = t.name_id "
             "WHERE n.text = '" +
             name + "')";
    };
    schema::for_each<schema::kTable<CollectiveRow>, &CollectiveRow::step, &CollectiveRow::bucket,
                     &CollectiveRow::first_param, &CollectiveRow::last_param, &CollectiveRow::bytes,
                     &CollectiveRow::dur_ns, &CollectiveRow::rank>(
        trace.db(), on_track("allreduce"), [&](const CollectiveRow& row) {
          rows.insert({row.step, row.bucket, row.first_param, row.last_param});
          CHECK(row.bytes > 0);
          CHECK(row.dur_ns > 0);
          CHECK(row.rank == rank);
        });
    CHECK(rows == expected);
    CHECK(sql::query_int(trace.db(), "SELECT count(*)" + lane + "WHERE n.text = 'allreduce'") ==
          3 * kSteps);
    // Before the first step, the calibration sweep: 256 B, 512 B, ... below the
    // gradients' bytes, and those bytes, three times each, one after the other.
    const std::int64_t gradient_bytes =
        sql::query_int(trace.db(), "SELECT sum(bytes) FROM parameter");
    std::vector<std::int64_t> sweep;
    for (std::int64_t bytes = 256; bytes < gradient_bytes; bytes *= 2)
      sweep.insert(sweep.end(), 3, bytes);
    sweep.insert(sweep.end(), 3, gradient_bytes);
    std::vector<std::int64_t> calibrated;
    schema::for_each<schema::kTable<CollectiveRow>, &CollectiveRow::bytes>(
        trace.db(), on_track("allreduce_calibration") + " ORDER BY start_ns",
        [&](const CollectiveRow& row) { calibrated.push_back(row.bytes); });
    CHECK(calibrated == sweep);
    CHECK(sql::query_int(trace.db(), "SELECT max(c.start_ns + c.dur_ns)" + lane +
                                         "WHERE n.text = 'allreduce_calibration'") <
          sql::query_int(trace.db(), "SELECT min(start_ns) FROM step"));
    // Every parameter's gradient-ready time in every step (ResNet-18: 62).
    CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM grad_ready") == 62 * kSteps);
    CHECK(sql::query_int(trace.db(),
                         "SELECT count(*) FROM range r JOIN string s ON s.id = r.name_id "
                         "WHERE s.text = 'allreduce_wait' AND r.category = 2") == kSteps);
  }
}

TEST_CASE("both ranks skip a step whose overflow only rank 0 saw", "[e2e]") {
  TempDir dir;
  // --plant-overflow writes infinity into rank 0's last gradient after the
  // AllReduce, so rank 1's own gradients stay finite: only agreement skips it.
  const std::string config = write_config(dir.path(),
                                          "loss_scale_manager: dynamic\nloss_scale: 1024\n"
                                          "loss_scale_window: 2\n")
                                 .string();
  const auto run = mpirun(dir, 2,
                          {"train", "--config", config, "--max-steps", "4", "--plant-overflow", "2",
                           "--trace", (dir / "run.db").string()});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("dynamic loss scale 1024: 1 steps overflowed, 1 skipped"));
  for (int rank = 0; rank < 2; ++rank) {
    const fs::path db = dir / ("run.rank" + std::to_string(rank) + ".db");
    INFO(db.string());
    CHECK(counter_values(db, "loss_scale") == std::vector<double>{1024, 1024, 2048, 1024});
    CHECK(counter_values(db, "skipped_steps") == std::vector<double>{0, 0, 1, 1});
  }
}

TEST_CASE("a rank that fails stops every rank with exit code 2", "[e2e]") {
  TempDir dir;
  const std::string config = write_config(dir.path()).string();
  SECTION("only rank 1 fails: its trace file is already there") {
    std::ofstream(dir / "run.rank1.db") << "in the way";
    const auto run = mpirun(
        dir, 2,
        {"train", "--config", config, "--max-steps", "50", "--trace", (dir / "run.db").string()});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("rank 1: error"));
    CHECK_THAT(run.err, Catch::Contains("run.rank1.db"));
  }
  SECTION("a split that names a parameter the model lacks") {
    const auto run =
        mpirun(dir, 2, {"train", "--config", config, "--set", "allreduce_split=index:[85,160]"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("the model has 62 parameters"));
  }
  SECTION("skip_corrupt, which would let ranks take different steps") {
    const auto run = mpirun(dir, 2, {"train", "--config", config, "--set", "skip_corrupt=true"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("skip_corrupt cannot be used with several ranks"));
  }
  SECTION("precision float64, whose gradients are not the float32 buckets ranks exchange") {
    const auto run = mpirun(dir, 2, {"train", "--config", config, "--set", "precision=float64"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("precision: float64 trains in one process"));
  }
}
