// A dump's recorded settings (docs/formats/dump.md): written and read back
// through the header, values of any JSON type read as text, a malformed
// section refused naming the line, and the rule that picks the environment
// variables worth recording.
#include "parity/importers/dump/run_settings.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "expect_error.hpp"
#include "parity/importers/dump/dump_writer.hpp"
#include "parity/importers/dump/tensor_dump.hpp"
#include "temp_dir.hpp"

using namespace parity::importers;
using parity::test::expect_error;
namespace fs = std::filesystem;

TEST_CASE("a dump's settings read back as they were written", "[unit]") {
  TempDir dir;
  DumpHeader header;
  header.producer = "run_settings_test";
  header.settings.config = {{"lr", "0.1,0.05"}, {"momentum", "0.9"}};
  header.settings.versions = {{"parity-train", "0.1.0"}};
  header.settings.environment = {{"OMP_NUM_THREADS", "4"}};
  { DumpWriter writer(dir / "dump", header); }
  const TensorDump dump = TensorDump::open(dir / "dump");
  CHECK(dump.header().settings.config == header.settings.config);
  CHECK(dump.header().settings.versions == header.settings.versions);
  CHECK(dump.header().settings.environment == header.settings.environment);
}

TEST_CASE("settings of any JSON type read as text; a header without them has none", "[unit]") {
  TempDir dir;
  const auto open_with = [&](const std::string& header_line) {
    fs::remove_all(dir / "d");
    fs::create_directories(dir / "d");
    std::ofstream(dir / "d" / "manifest.jsonl") << header_line << "\n";
    return TensorDump::open(dir / "d");
  };
  const TensorDump typed = open_with(
      R"({"format": "parity-dump", "version": 1, "config": {"momentum": 0.9, "nesterov": false, "lr": "0.1"}})");
  CHECK(typed.header().settings.config ==
        std::map<std::string, std::string>{{"lr", "0.1"}, {"momentum", "0.9"}, {"nesterov", "false"}});
  CHECK(open_with(R"({"format": "parity-dump", "version": 1})").header().settings.empty());
  expect_error([&] { open_with(R"({"format": "parity-dump", "version": 1, "versions": [1, 2]})"); },
               "'versions' is not an object", {(dir / "d" / "manifest.jsonl").string() + ":1"});
}

TEST_CASE("the environment variables that change a run are recorded, and no others", "[unit]") {
  for (const char* name : {"OMP_NUM_THREADS", "MKL_CBWR", "DNNL_MAX_CPU_ISA", "CUDA_VISIBLE_DEVICES",
                           "CUBLAS_WORKSPACE_CONFIG", "NCCL_ALGO", "TORCH_CUDNN_V8_API_ENABLED",
                           "MS_DEV_RUNTIME_CONF", "HCCL_BUFFSIZE", "PYTHONHASHSEED"})
    CHECK(is_recorded_variable(name));
  for (const char* name : {"HOME", "PATH", "USER", "SSH_AUTH_SOCK", "OMP", "LANG"})
    CHECK_FALSE(is_recorded_variable(name));
  ::setenv("OMP_SCHEDULE", "static", 1);
  ::setenv("PARITY_TEST_UNRECORDED", "x", 1);
  const auto recorded = recorded_environment();
  CHECK(recorded.at("OMP_SCHEDULE") == "static");
  CHECK_FALSE(recorded.count("PARITY_TEST_UNRECORDED"));
  CHECK_FALSE(recorded.count("PATH"));
  ::unsetenv("OMP_SCHEDULE");
  ::unsetenv("PARITY_TEST_UNRECORDED");
}
