// Checkpoints written by torch.save (PyTorch 1.13, torch_peer.py) read
// exactly as PyTorch holds them: names, dtypes, shapes and every byte.
#include "parity/importers/torch_checkpoint.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "torch_fixture.hpp"

using parity::importers::open_torch_checkpoint;
using parity::test::check_against_reference;
using parity::test::torch_peer_dir;

namespace {

std::vector<std::string> names_of(const parity::importers::TensorSource& source) {
  std::vector<std::string> names;
  for (const auto& entry : source.entries()) names.push_back(entry.name);
  return names;
}

}  // namespace

TEST_CASE("a torchvision ResNet-18 state_dict reads value for value, zip and legacy", "[e2e]") {
  const auto zip = open_torch_checkpoint(torch_peer_dir() / "resnet18.pth");
  CHECK(zip->format() == "pytorch");
  check_against_reference(*zip, "resnet18");
  const auto legacy = open_torch_checkpoint(torch_peer_dir() / "resnet18_legacy.pth");
  CHECK(legacy->format() == "pytorch-legacy");
  check_against_reference(*legacy, "resnet18");
  CHECK(zip->entries().size() == 122);
  CHECK(zip->find("layer4.1.bn2.running_var") != nullptr);
  CHECK(zip->find("layer1.0.bn1.num_batches_tracked")->dtype == parity::DType::kInt64);
}

TEST_CASE("every dtype Parity holds reads exactly, specials and scalars included", "[e2e]") {
  for (const char* file : {"dtypes.pth", "dtypes_legacy.pth"}) {
    const auto source = open_torch_checkpoint(torch_peer_dir() / file);
    check_against_reference(*source, "dtypes");
  }
}

TEST_CASE("views read from their own offsets and strides, storages shared or not", "[e2e]") {
  for (const char* file : {"views.pth", "views_legacy.pth"}) {
    const auto source = open_torch_checkpoint(torch_peer_dir() / file);
    check_against_reference(*source, "views");
  }
}

TEST_CASE("nested checkpoints name tensors by their path of keys and positions", "[e2e]") {
  const auto source = open_torch_checkpoint(torch_peer_dir() / "nested.pth");
  check_against_reference(*source, "nested");
  const auto names = names_of(*source);
  for (const char* name : {"state_dict.0.weight", "state_dict.1.num_batches_tracked",
                           "optimizer.state.0.momentum_buffer", "optimizer.state.3.momentum_buffer",
                           "list.0", "list.1.0", "parameters.weight", "parameters.tied"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  check_against_reference(*open_torch_checkpoint(torch_peer_dir() / "nested_legacy.pth"), "nested");
}

TEST_CASE("torch.save with pickle protocols 1 to 5 reads the same", "[e2e]") {
  for (int protocol = 1; protocol <= 5; ++protocol) {
    for (const std::string suffix : {".pth", "_legacy.pth"}) {
      INFO("protocol " << protocol << suffix);
      const std::string name = "protocol" + std::to_string(protocol);
      check_against_reference(*open_torch_checkpoint(torch_peer_dir() / (name + suffix)), name);
    }
  }
}

TEST_CASE("a file of one tensor or one Parameter names it after the file", "[e2e]") {
  const auto weights = open_torch_checkpoint(torch_peer_dir() / "weights.pt");
  check_against_reference(*weights, "weights");
  CHECK(names_of(*weights) == std::vector<std::string>{"weights"});
  const auto bias = open_torch_checkpoint(torch_peer_dir() / "bias.pt");
  CHECK(bias->format() == "pytorch-legacy");
  check_against_reference(*bias, "bias");
}

TEST_CASE("zip variants: ZIP64 records, deflated members, big-endian storages", "[e2e]") {
  check_against_reference(*open_torch_checkpoint(torch_peer_dir() / "zip64.pth"), "dtypes");
  check_against_reference(*open_torch_checkpoint(torch_peer_dir() / "deflated.pth"), "dtypes");
  check_against_reference(*open_torch_checkpoint(torch_peer_dir() / "bigendian.pth"), "bigendian");
}

TEST_CASE("tensors read from several threads at once are all exact", "[e2e]") {
  const auto source = open_torch_checkpoint(torch_peer_dir() / "resnet18.pth");
  const auto reference = parity::test::torch_reference("resnet18");
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < reference.size(); i += 2)  // every tensor read by two threads
        if (source->read(reference[i].name).data != reference[i].data) ++mismatches[t];
    });
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}
