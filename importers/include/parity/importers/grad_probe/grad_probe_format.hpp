// The gradient-sign probe format (docs/formats/grad-probe.md): a directory
// with `probe.json`, which names the probed parameters and lays out a step's
// record, and `signs.bin`, one fixed-size record per probed step: a 16-byte
// header (magic "PGSR", the parameter count, the step) and each parameter's
// sign bits (sign_bits.hpp) at the offset the header gives it. Written by
// `parity-train train --probe-grads` and samples/torch/dump_reference.py,
// read by `parity grad-probe`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::importers {

inline constexpr std::string_view kGradProbeFormat = "parity-grad-probe";
inline constexpr int kGradProbeVersion = 1;
inline constexpr std::string_view kGradProbeHeaderFile = "probe.json";
inline constexpr std::string_view kGradProbeSignsFile = "signs.bin";
inline constexpr char kGradProbeRecordMagic[4] = {'P', 'G', 'S', 'R'};
inline constexpr std::int64_t kGradProbeRecordHeaderBytes = 16;

struct ProbedParameter {
  std::string name;  // torchvision's: layer1.0.conv1.weight
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0;
  std::int64_t offset = 0;  // bytes from the start of a record; a multiple of 8
  std::int64_t bytes = 0;   // 8 * sign_words(elements)
};

struct GradProbeHeader {
  std::string producer;  // "parity-train 0.1.0"
  std::string model;     // "resnet18"
  std::vector<ProbedParameter> parameters;  // in the order their bits lie in a record
  std::int64_t record_bytes = kGradProbeRecordHeaderBytes;
};

// The header of a probe of these parameters (name, shape), in this order,
// with offsets, sizes and the record size filled in.
GradProbeHeader lay_out_grad_probe(std::string producer, std::string model,
                                   const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& parameters);

std::string grad_probe_header_json(const GradProbeHeader& header);
// Throws parity::Error naming `where` (the probe.json path) and what is
// missing or wrong; offsets and sizes must be those lay_out_grad_probe gives.
GradProbeHeader parse_grad_probe_header(std::string_view text, const std::string& where);

}  // namespace parity::importers
