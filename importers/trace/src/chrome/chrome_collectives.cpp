#include "chrome/chrome_collectives.hpp"

#include <cctype>

namespace parity::importers::trace {
namespace {

using profiler::CollectiveOp;

// Lower case without '_' and ' ': "All_Reduce" and "allreduce_" both read
// "allreduce", "long int" reads "longint".
std::string folded(std::string_view name) {
  std::string out;
  for (const char c : name)
    if (c != '_' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

constexpr std::string_view kKernelPrefixes[] = {"ncclDevKernel_", "ncclKernel_"};

}  // namespace

std::optional<CollectiveOp> collective_op_of(std::string_view name) {
  static const std::pair<std::string_view, CollectiveOp> ops[] = {
      {"allreduce", CollectiveOp::kAllReduce},
      {"broadcast", CollectiveOp::kBroadcast},
      {"allgather", CollectiveOp::kAllGather},
      {"allgatherbase", CollectiveOp::kAllGather},
      {"allgatherintotensor", CollectiveOp::kAllGather},
      {"reducescatter", CollectiveOp::kReduceScatter},
      {"reducescatterbase", CollectiveOp::kReduceScatter},
      {"reducescattertensor", CollectiveOp::kReduceScatter},
      {"reduce", CollectiveOp::kReduce},
      {"barrier", CollectiveOp::kBarrier},
      {"send", CollectiveOp::kSend},
      {"recv", CollectiveOp::kRecv},
      {"alltoall", CollectiveOp::kAllToAll},
      {"alltoallbase", CollectiveOp::kAllToAll},
  };
  const std::string key = folded(name);
  for (const auto& [text, op] : ops)
    if (key == text) return op;
  return std::nullopt;
}

std::optional<CollectiveOp> nccl_kernel_op(std::string_view kernel_name) {
  for (const std::string_view prefix : kKernelPrefixes) {
    if (!kernel_name.starts_with(prefix)) continue;
    const std::string_view rest = kernel_name.substr(prefix.size());
    return collective_op_of(rest.substr(0, rest.find_first_of("_(")));
  }
  return std::nullopt;
}

std::int64_t element_bytes(std::string_view type) {
  const std::string key = folded(type);
  if (key == "float" || key == "float32" || key == "int" || key == "int32" || key == "c10::float")
    return 4;
  if (key == "double" || key == "float64" || key == "longint" || key == "long" || key == "int64")
    return 8;
  if (key == "c10::half" || key == "half" || key == "float16" || key == "c10::bfloat16" ||
      key == "bfloat16" || key == "short" || key == "int16")
    return 2;
  if (key == "bool" || key == "unsignedchar" || key == "signedchar" || key == "char" ||
      key == "uint8" || key == "int8")
    return 1;
  return 0;
}

bool ChromeCollectives::consider(const ChromeEvent& event, std::int64_t start_ns,
                                 std::int64_t dur_ns) {
  const std::string_view name = event.name;
  if (event.category == "kernel") {
    const auto op = nccl_kernel_op(name);
    if (!op) return false;
    device_.push_back({start_ns, dur_ns, *op, 0, "",
                       "NCCL (GPU " + std::to_string(event.device.value_or(0)) + ")"});
    return true;
  }
  // "gloo:all_reduce", "nccl:all_reduce": the process group running one.
  const std::size_t colon = name.find(':');
  if (colon == std::string_view::npos || name.substr(colon, 2) == "::") return false;
  const std::string_view backend = name.substr(0, colon);
  if (backend != "gloo" && backend != "nccl" && backend != "mpi") return false;
  const auto op = collective_op_of(name.substr(colon + 1));
  if (!op) return false;
  const std::int64_t bytes = event.input_elements.value_or(0) * element_bytes(event.input_type);
  host_.push_back({start_ns, dur_ns, *op, bytes, std::string(event.input_type),
                   std::string(backend) + " (host)"});
  return true;
}

bool ChromeCollectives::sizes_missing() const {
  for (const Found& found : device_.empty() ? host_ : device_)
    if (found.bytes == 0) return true;
  return false;
}

void ChromeCollectives::add_to(TraceAssembly& assembly, std::int64_t rank) const {
  for (const Found& found : device_.empty() ? host_ : device_) {
    profiler::CollectiveRow row;
    row.track = assembly.track("collectives " + found.lane, profiler::TrackKind::kCollective);
    if (!assembly.has_label(row.track))
      assembly.describe_track(row.track, "collectives " + found.lane, {}, {});
    row.start_ns = found.start_ns;
    row.dur_ns = found.dur_ns;
    row.op = found.op;
    row.bytes = found.bytes;
    row.dtype = found.dtype;
    row.rank = rank;
    assembly.add_collective(row);
  }
}

}  // namespace parity::importers::trace
