// Test helpers for the MindSpore checkpoint suite: a protobuf encoder of its
// own, independent of the importer's writer, so that the reader is tested on
// bytes the code under test did not produce (and damaged ones no writer
// would); the committed fixtures; and the check that a file is refused with
// an error naming it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/tensor_source.hpp"

namespace parity::test::ckpt {

std::string varint(std::uint64_t value);
// A key and a varint value.
std::string varint_field(std::uint32_t number, std::uint64_t value);
// A key, a length and `payload`.
std::string bytes_field(std::uint32_t number, std::string_view payload);
// A TensorProto message: dims (unpacked), tensor_type, tensor_content.
std::string tensor(const std::vector<std::int64_t>& dims, std::string_view type,
                   std::string_view content);
// One top-level record: Checkpoint.value holding a Value of `tag` and the
// TensorProto `tensor_message`.
std::string value(std::string_view tag, std::string_view tensor_message);
// "crc_num" and the zlib CRC-32 of `body` as 10 big-endian bytes.
std::string crc_trailer(std::string_view body);

// tests/fixtures/mindspore/<name>
std::filesystem::path fixture(const std::string& name);

// Opens `path` and reads every tensor, expecting a parity::Error whose
// message holds `what` and whose location names the file and holds `where`.
void expect_refused(const std::filesystem::path& path, const std::string& what,
                    const std::string& where = {});

// Every tensor of `source`, read in entry order.
std::vector<importers::NamedTensor> read_all(const importers::TensorSource& source);

}  // namespace parity::test::ckpt
