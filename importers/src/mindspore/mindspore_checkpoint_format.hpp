// What a MindSpore .ckpt file is made of (checkpoint.proto, save_checkpoint,
// load_checkpoint; sources in docs/formats/mindspore-ckpt.md): field numbers,
// tensor_type strings, the values that are not tensors, the CRC trailer and
// the markers of an encrypted file. Shared by the reader and the writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parity/core/dtype.hpp"

namespace parity::importers::mindspore {

// message Checkpoint { repeated Value value = 1; }
inline constexpr std::uint32_t kCheckpointValue = 1;
// message Value { required string tag = 1;
//                 oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
inline constexpr std::uint32_t kValueTag = 1;
inline constexpr std::uint32_t kValueTensor = 2;
inline constexpr std::uint32_t kValueMapTensor = 3;
// message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
//                       required bytes tensor_content = 3; }
inline constexpr std::uint32_t kTensorDims = 1;
inline constexpr std::uint32_t kTensorType = 2;
inline constexpr std::uint32_t kTensorContent = 3;

// A string saved through append_dict: tensor_type "str", UTF-32 content.
inline constexpr std::string_view kStringTensorType = "str";
// The tag under which save_checkpoint stores the random generators' state.
inline constexpr std::string_view kRandomStateTag = "random_op";

// save_checkpoint(crc_check=True) ends the file with "crc_num" and the CRC-32
// of every byte before it, as a 10-byte big-endian integer.
inline constexpr std::string_view kCrcMarker = "crc_num";
inline constexpr std::size_t kCrcValueBytes = 10;
inline constexpr std::size_t kCrcTrailerBytes = kCrcMarker.size() + kCrcValueBytes;

// MindSpore's name of a dtype ("Float32", "BFloat16", "Bool", ...).
std::string_view tensor_type_of(DType dtype);
// The dtype of a tensor_type string, or nullopt.
std::optional<DType> dtype_of_tensor_type(std::string_view tensor_type);
// True for tensor types MindSpore writes that have no Parity dtype (UInt16, ...).
bool is_unsupported_tensor_type(std::string_view tensor_type);
// "Float64, Float32, ..." for hints.
std::string supported_tensor_types();

// The cipher mode ("AES-GCM", "AES-CBC", "SM4-CBC") when the file's first four
// bytes are the marker that MindSpore's encryption puts before every block.
std::optional<std::string_view> encryption_mode_of_marker(std::uint32_t first_four_bytes_le);

}  // namespace parity::importers::mindspore
