#include "parity/trainer/dist/data_parallel.hpp"

#include <cstdint>
#include <numeric>
#include <string>

namespace parity::trainer {

void broadcast_state(Communicator& communicator, Backend& backend, const ModelState& state) {
  for (const StateEntry& entry : state.entries) {
    if (!entry.tensor) continue;  // num_batches_tracked: the same count everywhere
    std::vector<float> values =
        communicator.rank() == 0
            ? backend.to_host(*entry.tensor)
            : std::vector<float>(static_cast<std::size_t>(element_count(entry.shape)));
    communicator.broadcast(values, 0);
    if (communicator.rank() != 0) backend.write(*entry.tensor, values);
  }
}

namespace {

std::vector<std::uint64_t> parameter_bytes(const std::vector<Parameter>& parameters) {
  std::vector<std::uint64_t> bytes;
  for (const Parameter& p : parameters)
    bytes.push_back(static_cast<std::uint64_t>(element_count(p.shape)) * 4);
  return bytes;
}

}  // namespace

std::vector<profiler::GradientBucket> gradient_buckets(const std::string& split,
                                                       const std::vector<Parameter>& parameters) {
  const std::string where = "config key 'allreduce_split'";
  return profiler::AllreduceSplit::parse(split, where).buckets(parameter_bytes(parameters), where);
}

std::uint64_t gradient_bytes(const std::vector<Parameter>& parameters) {
  const std::vector<std::uint64_t> bytes = parameter_bytes(parameters);
  return std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0});
}

std::filesystem::path rank_trace_path(const std::filesystem::path& path, int rank) {
  std::filesystem::path result = path;
  result.replace_filename(path.stem().string() + ".rank" + std::to_string(rank) +
                          path.extension().string());
  return result;
}

}  // namespace parity::trainer
