// `parity convert` says a note shared by many tensors once.
#include <catch2/catch.hpp>

#include "parity/analyzer/weights/convert.hpp"

using namespace parity::analyzer;

TEST_CASE("notes shared by many tensors are summarised into one line each", "[unit][weights]") {
  const std::string counter = "MindSpore's BatchNorm keeps no batch counter";
  std::vector<TensorNote> notes;
  notes.push_back({"bn1.num_batches_tracked", counter});
  notes.push_back({"moments.conv1.weight", "optimizer state"});
  for (int layer = 1; layer <= 52; ++layer)
    notes.push_back({"layer" + std::to_string(layer) + ".bn.num_batches_tracked", counter});
  notes.push_back({"moments.fc.bias", "optimizer state"});
  notes.push_back({"head.weight", "no counterpart in ref.pth"});
  CHECK(summarize_notes(notes) ==
        std::vector<std::string>{
            "53 tensors named *.num_batches_tracked (bn1.num_batches_tracked ... "
            "layer52.bn.num_batches_tracked): " +
                counter,
            "2 tensors (moments.conv1.weight ... moments.fc.bias): optimizer state",
            "head.weight: no counterpart in ref.pth"});
  CHECK(summarize_notes({}).empty());
}
