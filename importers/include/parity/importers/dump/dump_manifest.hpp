// The manifest of a tensor dump (docs/formats/dump.md): a header line, then
// one JSON record per tensor in execution order, each naming its step,
// phase, module, op, role, dtype, shape, .npy file and statistics. Written by
// the trainer's dumper, read by `parity compare` and `parity nan-scan`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/dtype.hpp"
#include "parity/importers/dump/run_settings.hpp"
#include "parity/importers/dump/tensor_stats.hpp"

namespace parity::importers {

inline constexpr std::string_view kDumpFormat = "parity-dump";
inline constexpr int kDumpVersion = 1;
inline constexpr std::string_view kManifestFile = "manifest.jsonl";

struct DumpHeader {
  std::string producer;  // "parity-train 0.1.0"
  std::string model;     // "resnet50"
  bool stats_only = false;
  RunSettings settings;  // the header's config, versions and environment objects
};

struct DumpRecord {
  std::int64_t index = 0;  // execution order over the whole dump
  std::int64_t step = 0;
  std::string phase;       // forward, backward, update ("" in a plain .npy directory)
  std::string name;        // module path, or parameter name for grad/param records
  std::string module;
  std::string op;
  std::string role;        // input, output, loss, grad_output, grad, param_before, param_after
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::optional<std::string> file;   // relative to the dump directory; absent when stats only
  std::optional<TensorStats> stats;  // absent in a plain .npy directory

  // "step 0 forward layer1.0.conv1 (output)", for reports and errors.
  std::string describe() const;
};

std::string manifest_header_line(const DumpHeader& header);
std::string manifest_record_line(const DumpRecord& record);

// Parse one line; `where` ("DIR/manifest.jsonl:3") names it in errors, which
// say what is missing or wrong.
DumpHeader parse_manifest_header(std::string_view line, const std::string& where);
DumpRecord parse_manifest_record(std::string_view line, const std::string& where);

// "tensors/000017-s0-forward-layer1.0.conv1-output.npy"
std::string dump_file_name(const DumpRecord& record);

}  // namespace parity::importers
