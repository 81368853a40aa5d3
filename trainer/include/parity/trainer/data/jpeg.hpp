// JPEG decoding with libjpeg-turbo into 8-bit RGB pixels (HWC). Decodes as
// PIL's Image.open(path).convert("RGB") does, with the same library and
// settings (islow DCT, fancy upsampling), so the pixels are identical:
// grayscale is replicated to three channels; CMYK and YCCK are read with
// Adobe's inverted convention and converted with PIL's formula. A damaged
// file never ends the process: libjpeg's errors, and a stream cut short
// (which libjpeg only warns about and fills with gray), become a
// parity::Error naming the file and libjpeg's message. Other libjpeg warnings
// ("extraneous bytes before marker") are tolerated, as PIL tolerates them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "parity/trainer/data/dataset.hpp"

namespace parity::trainer {

// Decodes `bytes`; `where` names the source in errors. The label is 0.
Sample decode_jpeg(std::span<const std::uint8_t> bytes, const std::string& where);

// Reads and decodes a JPEG file.
Sample read_jpeg(const std::filesystem::path& path);

}  // namespace parity::trainer
