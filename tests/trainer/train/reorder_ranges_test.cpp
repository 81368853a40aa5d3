// The CPU backend's layout conversions in a trace: while a recorder is set,
// every reorder the backend counts in its stats is one "reorder" op range;
// once it is unset, reorders are counted and recorded nowhere.
#include <catch2/catch.hpp>

#include "parity/profiler/recorder.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace profiler = parity::profiler;

TEST_CASE("the CPU backend records each reorder as a reorder op range while a recorder is set",
          "[unit]") {
  TempDir dir;
  auto backend = make_cpu_backend({1, true});
  std::uint64_t recorded = 0;
  {
    profiler::RecorderOptions options;
    options.path = dir / "run.db";
    profiler::Recorder recorder(options);
    backend->set_recorder(&recorder);
    Tracing untraced;  // modules record nothing: only the backend's ranges
    // Writing the initial weights converts them to the convolutions' layouts,
    // reading them back converts them again.
    ResNet model(*backend, {18, 4, false, {2, 3, 16, 16}, 3, Stem::kAuto, {}}, untraced);
    for (const Parameter& p : model.state().parameters) backend->to_host(p.tensors->value);
    const BackendStats stats = backend->stats();
    recorded = stats.activation_reorders + stats.weight_reorders;

    backend->set_recorder(nullptr);
    for (const Parameter& p : model.state().parameters) backend->to_host(p.tensors->value);
    CHECK(backend->stats().weight_reorders > stats.weight_reorders);  // counted, not recorded
  }
  REQUIRE(recorded > 0);
  profiler::TraceReader trace(dir / "run.db");
  CHECK(profiler::sql::query_int(trace.db(),
                                 "SELECT count(*) FROM range r JOIN string s ON s.id = r.name_id "
                                 "WHERE s.text = 'reorder' AND r.category = 4") ==
        std::int64_t(recorded));
  CHECK(profiler::sql::query_int(trace.db(), "SELECT count(*) FROM range") ==
        std::int64_t(recorded));
}
