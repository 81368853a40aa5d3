// Every command that reads traces also takes the foreign ones Parity imports
// (a PyTorch profiler JSON): each is converted once into a cache beside it
// (`<file>.parity.db`, as `parity import` would) and that is what is read.
#pragma once

#include <string>
#include <vector>

namespace parity::cli {

std::string readable_trace(const std::string& path);
std::vector<std::string> readable_traces(const std::vector<std::string>& paths);

}  // namespace parity::cli
