#include "parity/trainer/checkpoint/training_checkpoint.hpp"

#include <catch2/catch.hpp>

#include "checkpoint_fixture.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/safetensors.hpp"
#include "temp_dir.hpp"

using parity::Error;
using parity::importers::SafetensorsFile;
using parity::trainer::read_checkpoint;
using parity::trainer::TrainingCheckpoint;
using parity::trainer::write_checkpoint;

namespace {

void check_equal(const TrainingCheckpoint& a, const TrainingCheckpoint& b) {
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    INFO(a.tensors[i].name);
    CHECK(a.tensors[i].name == b.tensors[i].name);
    CHECK(a.tensors[i].dtype == b.tensors[i].dtype);
    CHECK(a.tensors[i].shape == b.tensors[i].shape);
    CHECK(a.tensors[i].data == b.tensors[i].data);
  }
  CHECK(a.epoch == b.epoch);
  CHECK(a.step == b.step);
  CHECK(a.step_in_epoch == b.step_in_epoch);
  CHECK(a.rng_state == b.rng_state);
  CHECK(a.config_yaml == b.config_yaml);
  CHECK(a.extra == b.extra);
}

// Rewrites the checkpoint at `path` with one metadata key changed (or removed when value is empty).
void edit_metadata(const std::filesystem::path& path, const std::string& key,
                   const std::optional<std::string>& value) {
  const auto file = SafetensorsFile::open(path);
  auto metadata = file.metadata();
  if (value)
    metadata[key] = *value;
  else
    metadata.erase(key);
  const auto tensors = file.read_all();
  parity::importers::write_safetensors(path, tensors, metadata);
}

}  // namespace

TEST_CASE("a training checkpoint round-trips: tensors, counters, RNG, config, extra", "[unit]") {
  TempDir dir;
  const TrainingCheckpoint saved = parity::test::small_checkpoint(3, 120);
  write_checkpoint(dir / "c.safetensors", saved);
  check_equal(read_checkpoint(dir / "c.safetensors"), saved);

  TrainingCheckpoint empty;  // no tensors, zero counters, empty strings
  write_checkpoint(dir / "empty.safetensors", empty);
  check_equal(read_checkpoint(dir / "empty.safetensors"), empty);

  TrainingCheckpoint rng;  // every byte value, and every base64 padding length
  for (int i = 0; i < 256; ++i) rng.rng_state += static_cast<char>(i);
  for (int length = 0; length < 7; ++length) {
    rng.rng_state.resize(static_cast<std::size_t>(250 + length));
    write_checkpoint(dir / "rng.safetensors", rng);
    CHECK(read_checkpoint(dir / "rng.safetensors").rng_state == rng.rng_state);
  }
}

TEST_CASE("the counters and text live in __metadata__ under parity. keys", "[unit]") {
  TempDir dir;
  write_checkpoint(dir / "c.safetensors", parity::test::small_checkpoint(2, 7));
  const auto file = SafetensorsFile::open(dir / "c.safetensors");
  const auto& metadata = file.metadata();
  CHECK(metadata.at("format") == "pt");
  CHECK(metadata.at("parity.format") == "training_checkpoint");
  CHECK(metadata.at("parity.format_version") == "1");
  CHECK_THAT(metadata.at("parity.writer"), Catch::StartsWith("parity "));
  CHECK(metadata.at("parity.epoch") == "2");
  CHECK(metadata.at("parity.step") == "1882");
  CHECK(metadata.at("parity.step_in_epoch") == "7");
  CHECK(metadata.at("parity.rng_state") == "bXQxOTkzNwAB/yBzdGF0ZQ==");
  CHECK(metadata.at("parity.config_yaml") == "net_name: resnet50\nbatch_size: 32  # ünïcode\n");
  CHECK(metadata.at("parity.extra.best_top1") == "0.9132");
  CHECK(metadata.at("parity.extra.note").empty());
  CHECK(metadata.size() == 11);
  // The tensors are a plain state_dict in the order given.
  REQUIRE(file.tensors().size() == 13);
  CHECK(file.tensors()[0].name == "conv1.weight");
  CHECK(file.tensors()[5].name == "bn1.num_batches_tracked");
  CHECK(file.tensors()[5].shape.empty());
  CHECK(file.tensors()[5].dtype == parity::DType::kInt64);
  CHECK(file.tensors()[8].name == "optimizer.momentum_buffer.conv1.weight");
}

TEST_CASE("files that are not trainer checkpoints are refused clearly", "[unit]") {
  TempDir dir;
  const auto path = dir / "c.safetensors";
  const auto expect_refused = [&](const std::string& what, const std::string& hint = {}) {
    try {
      read_checkpoint(path);
      FAIL("no error; expected: " << what);
    } catch (const Error& e) {
      INFO(e.what());
      CHECK_THAT(e.what_failed(), Catch::Contains(what));
      CHECK_THAT(e.where(), Catch::Contains(path.string()));
      CHECK_THAT(e.hint(), Catch::Contains(hint));
    }
  };

  parity::importers::write_safetensors(path, parity::test::small_model_state(), {{"format", "pt"}});
  expect_refused("not a Parity training checkpoint: its metadata has no parity.format",
                 "plain safetensors");
  parity::test::write_bytes(path, "PK\3\4 this is a zip archive (a .pth file)");
  expect_refused("header length");

  const auto reset = [&] { write_checkpoint(path, parity::test::small_checkpoint(1, 5)); };
  reset();
  edit_metadata(path, "parity.format", "optimizer_state");
  expect_refused("parity.format is 'optimizer_state'");
  reset();
  edit_metadata(path, "parity.format_version", "2");
  expect_refused("format version 2", "newer Parity");
  reset();
  edit_metadata(path, "parity.epoch", "-1");
  expect_refused("parity.epoch is '-1', not a non-negative integer");
  reset();
  edit_metadata(path, "parity.step", "12x");
  expect_refused("parity.step is '12x'");
  reset();
  edit_metadata(path, "parity.step_in_epoch", std::nullopt);
  expect_refused("has no parity.step_in_epoch");
  reset();
  edit_metadata(path, "parity.rng_state", "abc");
  expect_refused("not valid base64");
  reset();
  edit_metadata(path, "parity.rng_state", "ab=c");
  expect_refused("not valid base64");
  reset();
  edit_metadata(path, "parity.learning_rate", "0.1");
  expect_refused("unknown checkpoint metadata key 'parity.learning_rate'");

  reset();
  {
    const auto file = SafetensorsFile::open(path);
    auto tensors = file.read_all();
    std::erase_if(tensors, [](const auto& t) { return t.name == "fc.bias"; });
    parity::importers::write_safetensors(path, tensors, file.metadata());
  }
  expect_refused("momentum buffer of a parameter the checkpoint does not hold ('fc.bias')");
}

TEST_CASE("inconsistent checkpoints are refused before anything is written", "[unit]") {
  TempDir dir;
  const auto path = dir / "c.safetensors";
  auto checkpoint = parity::test::small_checkpoint(1, 1);
  checkpoint.step = -3;
  CHECK_THROWS_WITH(write_checkpoint(path, checkpoint), Catch::Contains("step is negative"));

  checkpoint = parity::test::small_checkpoint(1, 1);
  checkpoint.tensors.back().shape = {3};  // optimizer.momentum_buffer.fc.bias
  checkpoint.tensors.back().data.resize(12);
  CHECK_THROWS_WITH(write_checkpoint(path, checkpoint),
                    Catch::Contains("momentum buffer is float32 [3], its parameter float32 [2]"));

  checkpoint = parity::test::small_checkpoint(1, 1);
  checkpoint.tensors.front().data.pop_back();
  CHECK_THROWS_WITH(write_checkpoint(path, checkpoint), Catch::Contains("conv1.weight"));

  checkpoint = parity::test::small_checkpoint(1, 1);
  checkpoint.config_yaml = "\xff\xfe";
  CHECK_THROWS_WITH(write_checkpoint(path, checkpoint), Catch::Contains("not valid UTF-8"));

  checkpoint = parity::test::small_checkpoint(1, 1);
  checkpoint.extra[""] = "x";
  CHECK_THROWS_WITH(write_checkpoint(path, checkpoint), Catch::Contains("extra keys"));

  CHECK(std::filesystem::is_empty(dir.path()));
}
