#include "dump_fixture.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "parity/importers/dump/dump_writer.hpp"
#include "process.hpp"

namespace fixture {
namespace {

using parity::importers::DumpRecord;

DumpRecord record(std::string phase, std::string name, std::string module, std::string op,
                  std::string role, std::vector<std::int64_t> shape) {
  DumpRecord r;
  r.phase = std::move(phase);
  r.name = std::move(name);
  r.module = std::move(module);
  r.op = std::move(op);
  r.role = std::move(role);
  r.shape = std::move(shape);
  return r;
}

// FNV-1a: the same seed for a key on every platform.
std::uint32_t seed_of(const DumpRecord& r) {
  std::uint32_t hash = 2166136261u;
  for (const char c : std::to_string(r.step) + "/" + r.phase + "/" + r.role + "/" + r.name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return hash;
}

}  // namespace

std::vector<DumpRecord> small_network(int steps) {
  std::vector<DumpRecord> one;
  const auto forward = [&](std::string name, std::string op, std::vector<std::int64_t> shape) {
    one.push_back(record("forward", name, name, op, "output", shape));
  };
  one.push_back(record("forward", "input", "input", "input", "input", {2, 3, 8, 8}));
  forward("conv1", "conv2d", {2, 8, 8, 8});
  forward("bn1", "batch_norm_relu", {2, 8, 8, 8});
  forward("maxpool", "max_pool", {2, 8, 4, 4});
  forward("layer1.0.conv1", "conv2d", {2, 8, 4, 4});
  forward("layer1.0.bn1", "batch_norm_relu", {2, 8, 4, 4});
  forward("layer1.0.conv2", "conv2d", {2, 8, 4, 4});
  forward("layer1.0.bn2", "batch_norm", {2, 8, 4, 4});
  forward("layer1.0", "add_relu", {2, 8, 4, 4});
  forward("avgpool", "avg_pool", {2, 8, 1, 1});
  forward("fc", "linear", {2, 10});
  one.push_back(record("forward", "loss", "loss", "cross_entropy", "loss", {}));

  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> params{
      {"conv1.weight", {8, 3, 3, 3}},
      {"layer1.0.conv1.weight", {8, 8, 3, 3}},
      {"layer1.0.conv2.weight", {8, 8, 3, 3}},
      {"fc.weight", {10, 8}},
      {"fc.bias", {10}}};
  const auto module_of = [](const std::string& param) { return param.substr(0, param.rfind('.')); };
  // Backward: each module's grad_output as backward reaches it, then its parameters' grads.
  const auto backward = [&](std::string name, std::string op, std::vector<std::int64_t> shape) {
    one.push_back(record("backward", name, name, op, "grad_output", shape));
    for (const auto& [param, param_shape] : params)
      if (module_of(param) == name)
        one.push_back(record("backward", param, name, op, "grad", param_shape));
  };
  backward("fc", "linear", {2, 10});
  backward("avgpool", "avg_pool", {2, 8, 1, 1});
  backward("layer1.0", "add_relu", {2, 8, 4, 4});
  backward("layer1.0.bn2", "batch_norm", {2, 8, 4, 4});
  backward("layer1.0.conv2", "conv2d", {2, 8, 4, 4});
  backward("layer1.0.bn1", "batch_norm_relu", {2, 8, 4, 4});
  backward("layer1.0.conv1", "conv2d", {2, 8, 4, 4});
  backward("maxpool", "max_pool", {2, 8, 4, 4});
  backward("bn1", "batch_norm_relu", {2, 8, 8, 8});
  backward("conv1", "conv2d", {2, 8, 8, 8});
  for (const char* role : {"param_before", "param_after"})
    for (const auto& [param, shape] : params)
      one.push_back(record("update", param, module_of(param), "", role, shape));

  std::vector<DumpRecord> all;
  for (int step = 0; step < steps; ++step)
    for (DumpRecord r : one) {
      r.step = step;
      all.push_back(std::move(r));
    }
  return all;
}

std::vector<float> values_of(const DumpRecord& r) {
  std::mt19937 random(seed_of(r));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::int64_t count = 1;
  for (const std::int64_t dim : r.shape) count *= dim;
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& value : values) value = normal(random);
  return values;
}

std::filesystem::path write_dump(const std::filesystem::path& dir, const DumpSpec& spec) {
  parity::importers::DumpHeader header;
  header.producer = "compare_tests";
  header.model = "small";
  header.stats_only = spec.stats_only;
  header.settings = spec.settings;
  parity::importers::DumpWriter writer(dir, header);
  for (const DumpRecord& r : spec.records) {
    std::vector<float> values = values_of(r);
    for (const Plant& plant : spec.plants)
      if (plant.phase == r.phase && plant.name == r.name && plant.role == r.role)
        plant.change(values);
    if (spec.float64) {
      const std::vector<double> wide(values.begin(), values.end());
      writer.write(r, std::span<const double>(wide));
    } else {
      writer.write(r, std::span<const float>(values));
    }
  }
  return dir;
}

std::int64_t index_of(const std::vector<DumpRecord>& records, const std::string& phase,
                      const std::string& name, const std::string& role) {
  for (std::size_t k = 0; k < records.size(); ++k)
    if (records[k].phase == phase && records[k].name == name && records[k].role == role)
      return static_cast<std::int64_t>(k);
  FAIL("no record " << phase << " " << name << " " << role);
  return -1;
}

std::string manifest_line(const std::filesystem::path& dir, int line) {
  std::ifstream in(dir / "manifest.jsonl");
  std::string text;
  for (int k = 0; k < line; ++k) std::getline(in, text);
  return text;
}

void replace_manifest_line(const std::filesystem::path& dir, int line, const std::string& text) {
  std::vector<std::string> lines;
  {
    std::ifstream in(dir / "manifest.jsonl");
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  REQUIRE(line >= 1);
  REQUIRE(static_cast<std::size_t>(line) <= lines.size());
  lines[static_cast<std::size_t>(line - 1)] = text;
  std::ofstream out(dir / "manifest.jsonl", std::ios::trunc);
  for (const std::string& l : lines) out << l << '\n';
}

void run_numpy(const std::string& code, const std::filesystem::path& dir) {
  const ProcessResult result = run_process(
      {PARITY_PYTHON, "-c", "import sys, os\nimport numpy as np\n" + code, dir.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
}

}  // namespace fixture
