// Interoperability with an independent implementation: safetensors_peer.py
// writes and checks files with Python's struct and json, numpy and torch.
#include <catch2/catch.hpp>
#include <cmath>

#include "parity/importers/safetensors.hpp"
#include "process.hpp"
#include "safetensors_fixture.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::NamedTensor;
using parity::importers::SafetensorsFile;

namespace {

ProcessResult run_peer(const std::string& command, const std::filesystem::path& file) {
  return run_process({PARITY_PYTHON, PARITY_SAFETENSORS_PEER, command, file.string()});
}

}  // namespace

TEST_CASE("files written by Python (struct, json, torch) read back exactly", "[e2e]") {
  TempDir dir;
  const auto path = dir / "from_python.safetensors";
  const ProcessResult peer = run_peer("write", path);
  INFO(peer.out << peer.err);
  REQUIRE(peer.exit_code == 0);

  const auto file = SafetensorsFile::open(path);
  CHECK(file.metadata() ==
        std::map<std::string, std::string>{{"format", "pt"}, {"note", "naïve ✓ 测试"}});
  CHECK(file.tensors().size() == parity::test::peer_tensor_specs().size() + 2);
  for (const auto& spec : parity::test::peer_tensor_specs()) {
    INFO(spec.name);
    const NamedTensor tensor = file.read(spec.name);
    CHECK(tensor.dtype == spec.dtype);
    CHECK(tensor.shape == spec.shape);
    const auto values = tensor.to_double();
    REQUIRE(static_cast<std::int64_t>(values.size()) == tensor.element_count());
    for (std::size_t i = 0; i < values.size(); ++i)
      CHECK(values[i] == parity::test::pattern_value(spec.dtype, static_cast<std::int64_t>(i)));
  }
  const auto half = file.read("special.f16").to_double();
  REQUIRE(half.size() == 4);
  CHECK((std::isinf(half[0]) && half[0] > 0));
  CHECK((half[1] == 0.0 && std::signbit(half[1])));
  CHECK(half[2] == 65504.0);
  CHECK(half[3] == std::ldexp(1.0, -24));
  const auto bf16 = file.read("special.bf16");
  CHECK(bf16.dtype == DType::kBFloat16);
  const auto bf16_values = bf16.to_double();
  REQUIRE(bf16_values.size() == 3);
  CHECK((std::isinf(bf16_values[0]) && bf16_values[0] < 0));
  CHECK(std::isnan(bf16_values[1]));
  CHECK(bf16_values[2] == Approx(3.0e38).epsilon(0.01));
}

TEST_CASE("files written by Parity read back exactly in Python (torch, numpy)", "[e2e]") {
  TempDir dir;
  const auto path = dir / "from_parity.safetensors";
  std::vector<NamedTensor> tensors;
  for (const auto& spec : parity::test::peer_tensor_specs())
    tensors.push_back(parity::test::pattern_tensor(spec.name, spec.dtype, spec.shape));
  parity::importers::write_safetensors(path, tensors, {{"format", "pt"}, {"note", "naïve ✓ 测试"}});
  const ProcessResult peer = run_peer("check", path);
  INFO(peer.out << peer.err);
  CHECK(peer.exit_code == 0);
  CHECK_THAT(peer.out, Catch::Contains("OK 17 tensors"));
}
