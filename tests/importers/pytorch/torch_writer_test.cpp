// Our .pth writer against PyTorch 1.13: torch.load(weights_only=True) reads
// what we write, every dtype and every byte (specials, scalars, empty
// tensors, a torchvision state_dict), and our own reader reads it back.
#include <catch2/catch.hpp>

#include "parity/importers/torch_checkpoint.hpp"
#include "parity/importers/zip_archive.hpp"
#include "process.hpp"
#include "same_tensors.hpp"
#include "temp_dir.hpp"
#include "torch_fixture.hpp"

using parity::importers::NamedTensor;
namespace fs = std::filesystem;

namespace {

// The peer's every-dtype file and ResNet-18 as PyTorch holds them, plus a
// non-ASCII name and an int64 scalar (num_batches_tracked's form).
std::vector<NamedTensor> sample_tensors() {
  std::vector<NamedTensor> tensors = parity::test::torch_reference("dtypes");
  for (NamedTensor& tensor : parity::test::torch_reference("resnet18")) {
    tensor.name = "model." + tensor.name;
    tensors.push_back(std::move(tensor));
  }
  tensors.push_back(
      NamedTensor::from_values<float>("naïve.weight", {2}, std::vector<float>{1, -2}));
  tensors.push_back(
      NamedTensor::from_values<std::int64_t>("counter", {}, std::vector<std::int64_t>{1LL << 40}));
  return tensors;
}

}  // namespace

TEST_CASE("torch.load(weights_only=True) reads our .pth exactly", "[e2e]") {
  TempDir dir;
  const auto tensors = sample_tensors();
  parity::importers::write_torch_checkpoint(dir / "ours.pth", tensors);
  const auto loaded = run_process({PARITY_PYTHON, PARITY_TORCH_PEER, "--load",
                                   (dir / "ours.pth").string(), dir.path().string(), "ours"});
  INFO(loaded.err);
  REQUIRE(loaded.exit_code == 0);
  check_same_tensors(parity::test::torch_reference("ours", dir.path()), tensors);
}

TEST_CASE("our .pth reads back through our reader, laid out as torch.save lays it out", "[e2e]") {
  TempDir dir;
  const auto tensors = sample_tensors();
  parity::importers::write_tensor_file(dir / "ours.pt", tensors);
  const auto source = parity::importers::open_tensor_file(dir / "ours.pt");
  CHECK(source->format() == "pytorch");
  std::vector<NamedTensor> read;
  for (const auto& entry : source->entries()) read.push_back(source->read(entry.name));
  check_same_tensors(read, tensors);

  const auto archive = parity::importers::ZipArchive::open(dir / "ours.pt");
  const auto& members = archive.members();
  REQUIRE(members.size() == tensors.size() + 3);
  CHECK(members.front().name == "archive/data.pkl");
  CHECK(members[1].name == "archive/byteorder");
  CHECK(members[2].name == "archive/data/0");
  CHECK(members.back().name == "archive/version");
  for (const auto& member : members) {
    INFO(member.name);
    CHECK(member.is_stored());
    CHECK(member.data_offset % 64 == 0);
  }
}

TEST_CASE("the .pth writer refuses two tensors of one name and leaves no file", "[unit]") {
  TempDir dir;
  const auto one = NamedTensor::from_values<float>("w", {1}, std::vector<float>{1});
  const std::vector<NamedTensor> twice{one, one};
  CHECK_THROWS_WITH(parity::importers::write_torch_checkpoint(dir / "x.pth", twice),
                    Catch::Contains("two tensors are named 'w'") && Catch::Contains("x.pth"));
  CHECK_FALSE(fs::exists(dir / "x.pth"));
}
