// End-to-end: `parity-train` with optimizer Thor (a ResNet-18 on 16-pixel
// synthetic images, one thread). A run stopped and resumed continues bit for
// bit, its inverses carried by the checkpoint; a traced run records THOR's
// collection, factors and inversions in its refresh steps only and its
// preconditioning in every step, and `parity report` lists them as ops.
#include <catch2/catch.hpp>
#include <set>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "temp_dir.hpp"
#include "train_cli.hpp"

namespace fs = std::filesystem;
namespace sql = parity::profiler::sql;
using namespace parity_train_cli;

namespace {

constexpr std::int64_t kLayers = 21;  // ResNet-18: 20 convolutions and the classifier

Config thor_config(const fs::path& folder) {
  Config config(folder);
  config.set("optimizer", "Thor")
      .set("lr_init", "0.02")
      .set("lr_decay", "2")
      .set("lr_end_epoch", "3")
      .set("damping_init", "0.03")
      .set("damping_decay", "0.5")
      .set("frequency", "5");
  return config;
}

// How many ranges named `name` each step holds.
std::vector<std::int64_t> ranges_per_step(parity::profiler::TraceReader& trace,
                                          const std::string& name, std::int64_t steps) {
  std::vector<std::int64_t> counts;
  for (std::int64_t step = 0; step < steps; ++step)
    counts.push_back(sql::query_int(
        trace.db(),
        "SELECT count(*) FROM range r JOIN string n ON n.id = r.name_id JOIN step s ON s.step = " +
            std::to_string(step) + " WHERE n.text = '" + name +
            "' AND r.start_ns >= s.start_ns AND r.start_ns < s.end_ns"));
  return counts;
}

}  // namespace

TEST_CASE("a THOR run stopped and resumed continues bit for bit, its inverses in the checkpoint",
          "[e2e]") {
  // 12 steps, refreshes at 0, 5 and 10: B stops after step 3, so C's first
  // steps use the inverses B's checkpoint carried.
  TempDir dir;
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "bc");
  const auto config_a = thor_config(dir / "a").write(dir / "a.yaml");
  const auto config_bc = thor_config(dir / "bc").write(dir / "bc.yaml");
  const auto a = parity_train({"train", "--config", config_a.string(), "--log-every", "1"});
  INFO("A: " << a.err);
  REQUIRE(a.exit_code == 0);
  const auto b = parity_train({"train", "--config", config_bc.string(), "--log-every", "1", "--max-steps", "4"});
  INFO("B: " << b.err);
  REQUIRE(b.exit_code == 0);
  const auto c = parity_train({"train", "--config", config_bc.string(), "--log-every", "1", "--resume",
                               last_checkpoint(b.out).string()});
  INFO("C: " << c.err);
  REQUIRE(c.exit_code == 0);

  auto lines_bc = loss_lines(b.out);
  const auto lines_c = loss_lines(c.out);
  lines_bc.insert(lines_bc.end(), lines_c.begin(), lines_c.end());
  CHECK(lines_bc == loss_lines(a.out));
  CHECK(lines_bc.size() == 12);

  const auto final_a = parity::trainer::read_checkpoint(dir / "a" / "checkpoints" / "run-2_6.safetensors");
  const auto final_c = parity::trainer::read_checkpoint(dir / "bc" / "checkpoints" / "run-2_6.safetensors");
  REQUIRE(final_a.tensors.size() == final_c.tensors.size());
  std::size_t inverses = 0;
  for (std::size_t i = 0; i < final_a.tensors.size(); ++i) {
    INFO(final_a.tensors[i].name);
    CHECK(final_a.tensors[i].name == final_c.tensors[i].name);
    CHECK(final_a.tensors[i].data == final_c.tensors[i].data);
    inverses += final_a.tensors[i].name.starts_with("optimizer.thor.");
  }
  CHECK(inverses == 2 * kLayers);
}

TEST_CASE("a traced THOR run shows its refreshes and its preconditioning, and the report lists them",
          "[e2e]") {
  constexpr std::int64_t kSteps = 7;  // refreshes at 0 and 5
  TempDir dir;
  Config config = thor_config(dir.path());
  config.set("synthetic_size", "56").set("epoch_size", "1");
  const auto file = config.write(dir / "thor.yaml");
  const auto db = dir / "thor.db";
  const auto run = parity_train({"train", "--config", file.string(), "--trace", db.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);

  parity::profiler::TraceReader trace(db);
  const auto refresh_only = [](std::int64_t per_refresh) {
    return std::vector<std::int64_t>{per_refresh, 0, 0, 0, 0, per_refresh, 0};
  };
  // Each layer's input and output gradient, then its factors; the inverses
  // of all layers are one range (the GPU inverts them as one batch).
  CHECK(ranges_per_step(trace, "thor_collect", kSteps) == refresh_only(2 * kLayers));
  CHECK(ranges_per_step(trace, "thor_factors", kSteps) == refresh_only(kLayers));
  CHECK(ranges_per_step(trace, "thor_inverse", kSteps) == refresh_only(1));
  CHECK(ranges_per_step(trace, "thor_precondition", kSteps) == std::vector<std::int64_t>(kSteps, 1));
  CHECK(ranges_per_step(trace, "thor_allreduce", kSteps) == std::vector<std::int64_t>(kSteps, 0));
  // The optimizer's work sits in the optimizer phase.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM range r JOIN string n ON n.id = r.name_id "
                       "JOIN range p ON p.id = r.parent_id JOIN string pn ON pn.id = p.name_id "
                       "WHERE n.text IN ('thor_factors', 'thor_inverse', 'thor_precondition') "
                       "AND pn.text <> 'optimizer'") == 0);

  const auto report = run_process({PARITY_CLI, "report", db.string(), "--format", "md"});
  INFO(report.err);
  for (const char* op : {"thor_precondition", "thor_inverse", "thor_collect"})
    CHECK_THAT(report.out, Catch::Contains(op));
}
