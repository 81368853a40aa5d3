#include "parity/trainer/checkpoint/checkpoint_manager.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <set>

#include "file_size_limit.hpp"
#include "checkpoint_fixture.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/safetensors.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using parity::Error;
using parity::trainer::CheckpointManager;
using parity::trainer::TrainingCheckpoint;

namespace {

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    names.insert(entry.path().filename().string());
  return names;
}

// A checkpoint of about 150 KB (one 64x64x3x3 convolution more).
TrainingCheckpoint big_checkpoint(std::int64_t epoch, std::int64_t step_in_epoch) {
  auto checkpoint = parity::test::small_checkpoint(epoch, step_in_epoch);
  checkpoint.tensors.push_back(parity::test::pattern_tensor(
      "layer1.0.conv1.weight", parity::DType::kFloat32, {64, 64, 3, 3}));
  return checkpoint;
}

}  // namespace

TEST_CASE("checkpoint file names follow MindSpore's PREFIX-EPOCH_STEP", "[unit]") {
  using parity::trainer::checkpoint_file_name;
  using parity::trainer::parse_checkpoint_file_name;
  CHECK(checkpoint_file_name("resnet", 1, 1875) == "resnet-1_1875.safetensors");
  CHECK(parse_checkpoint_file_name("resnet-1_1875.safetensors", "resnet") ==
        std::pair<std::int64_t, std::int64_t>(1, 1875));
  CHECK(parse_checkpoint_file_name("resnet-0_0.safetensors", "resnet") ==
        std::pair<std::int64_t, std::int64_t>(0, 0));
  CHECK(parse_checkpoint_file_name("my-net_v2-10_3.safetensors", "my-net_v2") ==
        std::pair<std::int64_t, std::int64_t>(10, 3));
  for (const char* other :
       {"resnet-1_1875.ckpt", "resnet50-1_1875.safetensors", "resnet-1.safetensors",
        "resnet-01_5.safetensors", "resnet-1_05.safetensors", "resnet-1_.safetensors",
        "resnet-_1.safetensors", "resnet-1_2_3.safetensors", "resnet-a_1.safetensors",
        "resnet-1_-2.safetensors", "resnet-+1_2.safetensors", ".resnet-1_2.safetensors.tmp-12-0",
        "resnet-1_2.safetensors.bak", "resnet-99999999999999999999_1.safetensors", "resnet"})
    CHECK_FALSE(parse_checkpoint_file_name(other, "resnet"));
}

TEST_CASE("save creates the folder and writes PREFIX-EPOCH_STEP.safetensors", "[unit]") {
  TempDir dir;
  const CheckpointManager manager(dir / "runs" / "a" / "checkpoints", "resnet", 5);
  CHECK(manager.list().empty());
  CHECK_FALSE(manager.latest());
  CHECK_FALSE(fs::exists(dir / "runs"));  // nothing touched before save
  const fs::path written = manager.save(parity::test::small_checkpoint(1, 1875));
  CHECK(written == dir / "runs" / "a" / "checkpoints" / "resnet-1_1875.safetensors");
  CHECK(names_in(manager.folder()) == std::set<std::string>{"resnet-1_1875.safetensors"});
  const TrainingCheckpoint back = manager.load(written);
  CHECK(back.epoch == 1);
  CHECK(back.step_in_epoch == 1875);
  CHECK(back.step == 1875);
  CHECK(back.extra.at("best_top1") == "0.9132");
}

TEST_CASE("rotation keeps the newest keep_max files of the manager's own prefix", "[unit]") {
  TempDir dir;
  // Files that are not this manager's: another prefix, another extension, a note.
  parity::importers::write_safetensors(dir / "resnet50-1_1.safetensors", {});
  parity::importers::write_safetensors(dir / "vgg-1_1.safetensors", {});
  parity::test::write_bytes(dir / "resnet-1_1.ckpt", "mindspore");
  parity::test::write_bytes(dir / "notes.txt", "keep me");
  const std::set<std::string> others{"resnet50-1_1.safetensors", "vgg-1_1.safetensors",
                                     "resnet-1_1.ckpt", "notes.txt"};

  const CheckpointManager manager(dir.path(), "resnet", 2);
  for (std::int64_t epoch = 1; epoch <= 5; ++epoch)
    manager.save(parity::test::small_checkpoint(epoch, 100));
  auto expected = others;
  expected.insert({"resnet-4_100.safetensors", "resnet-5_100.safetensors"});
  CHECK(names_in(dir.path()) == expected);

  // Resuming from an older checkpoint: the file just written is kept even when it is the oldest.
  manager.save(parity::test::small_checkpoint(3, 50));
  expected.erase("resnet-4_100.safetensors");
  expected.insert("resnet-3_50.safetensors");
  CHECK(names_in(dir.path()) == expected);

  // keep_max 1 keeps only the file just written.
  CheckpointManager(dir.path(), "resnet", 1).save(parity::test::small_checkpoint(6, 0));
  expected.erase("resnet-3_50.safetensors");
  expected.erase("resnet-5_100.safetensors");
  expected.insert("resnet-6_0.safetensors");
  CHECK(names_in(dir.path()) == expected);
}

TEST_CASE("keep_max 0 keeps every checkpoint, and saving the same step replaces it", "[unit]") {
  TempDir dir;
  const CheckpointManager manager(dir.path(), "net", 0);
  for (std::int64_t step = 1; step <= 6; ++step)
    manager.save(parity::test::small_checkpoint(1, step * 10));
  CHECK(manager.list().size() == 6);
  auto again = parity::test::small_checkpoint(1, 60);
  again.extra["best_top1"] = "0.95";
  manager.save(again);
  CHECK(manager.list().size() == 6);
  CHECK(manager.load(manager.path_for(1, 60)).extra.at("best_top1") == "0.95");
}

TEST_CASE("latest finds the newest by epoch then step, numerically", "[unit]") {
  TempDir dir;
  const CheckpointManager manager(dir / "ckpt", "resnet", 0);
  CHECK_FALSE(manager.latest());  // no folder yet
  for (const auto& [epoch, step] :
       std::vector<std::pair<int, int>>{{2, 9}, {1, 1875}, {2, 10}, {9, 100}})
    manager.save(parity::test::small_checkpoint(epoch, step));
  CHECK(manager.latest() == manager.path_for(9, 100));
  manager.save(parity::test::small_checkpoint(10, 1));
  CHECK(manager.latest() == manager.path_for(10, 1));
  const auto files = manager.list();
  REQUIRE(files.size() == 5);
  CHECK(files[0].epoch == 1);
  CHECK(files[1].step_in_epoch == 9);
  CHECK(files[2].step_in_epoch == 10);
  CHECK(files[4].epoch == 10);
  // A folder named like a checkpoint is not one.
  fs::create_directory(dir / "ckpt" / "resnet-99_0.safetensors");
  CHECK(manager.latest() == manager.path_for(10, 1));
  CHECK(CheckpointManager(dir / "ckpt", "other", 0).latest() == std::nullopt);
}

TEST_CASE("bad manager settings are refused", "[unit]") {
  TempDir dir;
  CHECK_THROWS_WITH(CheckpointManager(dir.path(), "", 1),
                    Catch::Contains("invalid checkpoint prefix"));
  CHECK_THROWS_WITH(CheckpointManager(dir.path(), "a/b", 1),
                    Catch::Contains("invalid checkpoint prefix"));
  CHECK_THROWS_WITH(CheckpointManager(dir.path(), ".hidden", 1),
                    Catch::Contains("invalid checkpoint prefix"));
  CHECK_THROWS_WITH(CheckpointManager(dir.path(), "resnet", -1),
                    Catch::Contains("keep_max is negative"));
  parity::test::write_bytes(dir / "file", "x");
  CHECK_THROWS_WITH(CheckpointManager(dir / "file" / "sub", "resnet", 1)
                        .save(parity::test::small_checkpoint(1, 1)),
                    Catch::Contains("cannot create the checkpoint folder"));
  auto negative = parity::test::small_checkpoint(1, 1);
  negative.epoch = -1;
  CHECK_THROWS_WITH(CheckpointManager(dir / "c", "resnet", 1).save(negative),
                    Catch::Contains("negative"));
}

TEST_CASE("a failed write leaves the previous checkpoints intact and no partial file", "[unit]") {
  TempDir dir;
  const CheckpointManager manager(dir.path(), "resnet", 2);
  manager.save(big_checkpoint(1, 100));
  manager.save(big_checkpoint(2, 100));
  const std::string first = parity::test::read_bytes(manager.path_for(1, 100));
  const std::string second = parity::test::read_bytes(manager.path_for(2, 100));
  const auto before = names_in(dir.path());

  {
    FileSizeLimit limit(64 * 1024);  // the disk fills up halfway through the next checkpoint
    try {
      manager.save(big_checkpoint(3, 100));
      FAIL("no error");
    } catch (const Error& e) {
      CHECK_THAT(e.what_failed(), Catch::Contains("cannot write safetensors file"));
      CHECK_THAT(e.where(), Catch::StartsWith(manager.path_for(3, 100).string()));
    }
    // Replacing a file of the same name fails the same way, and keeps the old one.
    CHECK_THROWS_WITH(manager.save(big_checkpoint(2, 100)),
                      Catch::Contains("cannot write safetensors file"));
  }
  CHECK(names_in(dir.path()) == before);  // no resnet-3_100, no temporary, none rotated away
  CHECK(parity::test::read_bytes(manager.path_for(1, 100)) == first);
  CHECK(parity::test::read_bytes(manager.path_for(2, 100)) == second);
  CHECK(manager.latest() == manager.path_for(2, 100));
  CHECK(manager.load(manager.path_for(2, 100)).epoch == 2);

  // The rename itself fails: something else holds the final name.
  fs::create_directories(manager.path_for(4, 0) / "inside");
  CHECK_THROWS_WITH(manager.save(big_checkpoint(4, 0)),
                    Catch::Contains("cannot move the new file into place"));
  CHECK(fs::is_directory(manager.path_for(4, 0) / "inside"));
  auto expected = before;
  expected.insert("resnet-4_0.safetensors");  // the folder
  CHECK(names_in(dir.path()) == expected);
  CHECK(parity::test::read_bytes(manager.path_for(1, 100)) == first);
}

TEST_CASE("a process killed mid-write leaves only a temporary, removed by the next save",
          "[unit]") {
  TempDir dir;
  const CheckpointManager manager(dir.path(), "resnet", 3);
  manager.save(big_checkpoint(1, 100));
  const std::string first = parity::test::read_bytes(manager.path_for(1, 100));

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // SIGXFSZ's default action kills the process at the first write past the limit.
    std::signal(SIGXFSZ, SIG_DFL);
    rlimit limit{};
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = 64 * 1024;
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      manager.save(big_checkpoint(2, 100));
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGXFSZ);

  CHECK_FALSE(fs::exists(manager.path_for(2, 100)));
  CHECK(parity::test::read_bytes(manager.path_for(1, 100)) == first);
  CHECK(manager.latest() == manager.path_for(1, 100));
  const std::string temporary = ".resnet-2_100.safetensors.tmp-" + std::to_string(child) + "-";
  auto names = names_in(dir.path());
  REQUIRE(names.size() == 2);
  CHECK_THAT(*std::next(names.begin(), 0), Catch::StartsWith(temporary));

  // A live process's temporary (this one's) is left alone; the dead one's goes.
  const std::string live = ".resnet-9_9.safetensors.tmp-" + std::to_string(getpid()) + "-77";
  parity::test::write_bytes(dir / live, "being written");
  manager.save(big_checkpoint(2, 100));
  CHECK(names_in(dir.path()) ==
        std::set<std::string>{live, "resnet-1_100.safetensors", "resnet-2_100.safetensors"});
}
