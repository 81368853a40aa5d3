// A PyTorch user loads the model tensors of a trainer checkpoint with the
// plain safetensors format (checkpoint_peer.py reads it with struct and json)
// into a torch module with load_state_dict(strict=True).
#include <catch2/catch.hpp>

#include "checkpoint_fixture.hpp"
#include "parity/trainer/checkpoint/checkpoint_manager.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

TEST_CASE("PyTorch loads a trainer checkpoint's state_dict strictly", "[e2e]") {
  TempDir dir;
  const parity::trainer::CheckpointManager manager(dir.path(), "resnet", 5);
  const auto path = manager.save(parity::test::small_checkpoint(2, 40));
  const ProcessResult peer = run_process(
      {PARITY_PYTHON, PARITY_CHECKPOINT_PEER, "check", path.string(), "2", "1915", "40"});
  INFO(peer.out << peer.err);
  CHECK(peer.exit_code == 0);
  CHECK_THAT(peer.out, Catch::Contains("OK 8 model tensors, 5 optimizer tensors"));
}
