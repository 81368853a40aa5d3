// open_tensor_file recognises every format by content, and write_tensor_file
// writes every writable one by extension: a round trip through each.
#include <catch2/catch.hpp>
#include <fstream>

#include "parity/core/error.hpp"
#include "parity/importers/tensor_source.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using namespace parity;
using importers::NamedTensor;

namespace {

std::vector<NamedTensor> sample_tensors() {
  const std::vector<float> weights{1.5f, -2.0f, 0.25f, 8.0f, 3.0f, -0.5f};
  const std::vector<std::int64_t> counter{7};
  return {NamedTensor::from_values<float>("layer.weight", {2, 3}, weights),
          NamedTensor::from_values<std::int64_t>("layer.steps", {}, counter)};
}

void check_round_trip(const std::filesystem::path& path, std::string_view format) {
  const std::vector<NamedTensor> tensors = sample_tensors();
  importers::write_tensor_file(path, tensors);
  const auto source = importers::open_tensor_file(path);
  CHECK(source->format() == format);
  REQUIRE(source->entries().size() == tensors.size());
  for (const NamedTensor& tensor : tensors) {
    const NamedTensor read = source->read(tensor.name);
    CHECK(read.dtype == tensor.dtype);
    CHECK(read.shape == tensor.shape);
    CHECK(read.data == tensor.data);
  }
}

std::string refusal(const std::filesystem::path& path) {
  try {
    importers::open_tensor_file(path);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("write_tensor_file and open_tensor_file round trip every writable format", "[unit]") {
  TempDir dir;
  check_round_trip(dir / "w.safetensors", "safetensors");
  check_round_trip(dir / "w.ckpt", "mindspore");
  check_round_trip(dir / "w.npz", "npz");
  check_round_trip(dir / "w.pt", "pytorch");
  // Recognised by content, whatever the name says.
  std::filesystem::rename(dir / "w.ckpt", dir / "w.bin");
  CHECK(importers::open_tensor_file(dir / "w.bin")->format() == "mindspore");
  std::filesystem::rename(dir / "w.npz", dir / "w.pth");
  CHECK(importers::open_tensor_file(dir / "w.pth")->format() == "npz");

  const std::vector<NamedTensor> one{sample_tensors().front()};
  importers::write_tensor_file(dir / "layer.npy", one);
  const auto npy = importers::open_tensor_file(dir / "layer.npy");
  CHECK(npy->format() == "npy");
  CHECK(npy->read("layer").data == one.front().data);
}

TEST_CASE("open_tensor_file recognises PyTorch's zip and legacy files", "[unit]") {
  TempDir dir;
  const auto result =
      run_process({PARITY_PYTHON, "-c",
                   "import torch, sys\n"
                   "state = {'w': torch.arange(6.0).reshape(2, 3)}\n"
                   "torch.save(state, sys.argv[1])\n"
                   "torch.save(state, sys.argv[2], _use_new_zipfile_serialization=False)\n",
                   (dir / "zip.pt").string(), (dir / "legacy.pt").string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(importers::open_tensor_file(dir / "zip.pt")->format() == "pytorch");
  CHECK(importers::open_tensor_file(dir / "legacy.pt")->format() == "pytorch-legacy");
}

TEST_CASE("a safetensors header length ending in 0x80 is not taken for a pickle", "[unit]") {
  TempDir dir;
  // Pad the header to 0x280 bytes: the file starts 0x80 0x02, like a protocol-2 pickle.
  std::string header = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  header.resize(0x280, ' ');
  std::ofstream out(dir / "x.safetensors", std::ios::binary);
  const std::uint64_t length = header.size();
  out.write(reinterpret_cast<const char*>(&length), 8);
  out << header;
  const float value = 1.0f;
  out.write(reinterpret_cast<const char*>(&value), 4);
  out.close();
  CHECK(importers::open_tensor_file(dir / "x.safetensors")->format() == "safetensors");
}

TEST_CASE("open_tensor_file names files it cannot read", "[unit]") {
  TempDir dir;
  CHECK_THAT(refusal(dir / "missing.pth"),
             Catch::Contains("cannot open") && Catch::Contains("missing.pth"));
  std::ofstream(dir / "empty.pth").close();
  CHECK_THAT(refusal(dir / "empty.pth"),
             Catch::Contains("the file is empty") && Catch::Contains("empty.pth"));
  std::ofstream(dir / "notes.txt") << "just some text";
  CHECK_THAT(refusal(dir / "notes.txt"),
             Catch::Contains("not a tensor file") && Catch::Contains("notes.txt"));
  CHECK_THROWS_WITH(importers::write_tensor_file(dir / "x.tf", sample_tensors()),
                    Catch::Contains("unknown output format '.tf'") && Catch::Contains(".pth/.pt"));
}
