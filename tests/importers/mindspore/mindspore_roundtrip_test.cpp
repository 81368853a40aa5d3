// What our writer writes, our reader reads back unchanged: every dtype,
// scalars and empty tensors, split or whole, with or without the CRC
// trailer, from several threads at once.
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "checkpoint_bytes.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"
#include "safetensors_fixture.hpp"
#include "same_tensors.hpp"
#include "temp_dir.hpp"

using parity::DType;
using parity::importers::kMindsporeSliceBytes;
using parity::importers::MindsporeWriteOptions;
using parity::importers::NamedTensor;
using parity::importers::open_mindspore_checkpoint;
using parity::importers::write_mindspore_checkpoint;

namespace {

std::vector<NamedTensor> every_dtype() {
  std::vector<NamedTensor> tensors;
  for (const auto& spec : parity::test::peer_tensor_specs())
    tensors.push_back(parity::test::pattern_tensor(spec.name, spec.dtype, spec.shape));
  return tensors;
}

}  // namespace

TEST_CASE("every dtype round-trips, whole or split, with or without a CRC trailer", "[unit]") {
  const auto tensors = every_dtype();
  for (const bool crc : {false, true}) {
    for (const std::uint64_t slice_bytes : {kMindsporeSliceBytes, std::uint64_t{7}}) {
      INFO("crc " << crc << ", slice_bytes " << slice_bytes);
      TempDir dir;
      MindsporeWriteOptions options;
      options.crc_trailer = crc;
      options.slice_bytes = slice_bytes;
      write_mindspore_checkpoint(dir / "all.ckpt", tensors, options);
      const auto source = open_mindspore_checkpoint(dir / "all.ckpt");
      REQUIRE(source->entries().size() == tensors.size());
      for (std::size_t i = 0; i < tensors.size(); ++i) {
        CHECK(source->entries()[i].name == tensors[i].name);
        CHECK(source->entries()[i].dtype == tensors[i].dtype);
        CHECK(source->entries()[i].shape == tensors[i].shape);
      }
      check_same_tensors(parity::test::ckpt::read_all(*source), tensors);
    }
  }
}

TEST_CASE("tensors are read correctly from several threads at once", "[unit]") {
  TempDir dir;
  const auto tensors = every_dtype();
  MindsporeWriteOptions options;
  options.slice_bytes = 5;
  write_mindspore_checkpoint(dir / "all.ckpt", tensors, options);
  const auto source = open_mindspore_checkpoint(dir / "all.ckpt");
  std::vector<std::vector<NamedTensor>> results(8);
  std::vector<std::thread> threads;
  for (auto& result : results)
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) result = parity::test::ckpt::read_all(*source);
    });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) check_same_tensors(result, tensors);
}

TEST_CASE("opening reads no tensor bytes: a 3 GiB tensor costs nothing until read", "[unit]") {
  namespace ckpt = parity::test::ckpt;
  TempDir dir;
  const std::uint64_t size = std::uint64_t{3} << 30;
  // The record's bytes up to the content, then a hole of `size` bytes.
  const std::string tensor_head = ckpt::varint_field(1, size) + ckpt::bytes_field(2, "UInt8") +
                                  ckpt::varint((3 << 3) | 2) + ckpt::varint(size);
  const std::string value_head = ckpt::bytes_field(1, "huge") + ckpt::varint((2 << 3) | 2) +
                                 ckpt::varint(tensor_head.size() + size);
  const std::string head = "\x0a" + ckpt::varint(value_head.size() + tensor_head.size() + size) +
                           value_head + tensor_head;
  parity::test::write_bytes(dir / "sparse.ckpt", head);
  std::filesystem::resize_file(dir / "sparse.ckpt", head.size() + size);

  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto source = open_mindspore_checkpoint(dir / "sparse.ckpt");
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  REQUIRE(source->entries().size() == 1);
  CHECK(source->entries()[0].shape == std::vector<std::int64_t>{static_cast<std::int64_t>(size)});
  CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024);  // KiB
}

TEST_CASE("a tensor above 512 MiB is split like save_checkpoint and joined on read", "[slow]") {
  TempDir dir;
  NamedTensor big{
      "embedding.weight", DType::kUInt8, {static_cast<std::int64_t>(kMindsporeSliceBytes) + 3}, {}};
  big.data.resize(static_cast<std::size_t>(big.shape[0]));
  for (std::size_t i = 0; i < big.data.size(); ++i)
    big.data[i] = static_cast<std::byte>((i * 131) >> 7);
  write_mindspore_checkpoint(dir / "big.ckpt", std::span(&big, 1));
  // The file ends with a second value of the last 3 bytes, carrying the whole dims.
  const std::string tail = parity::test::ckpt::value(
      "embedding.weight",
      parity::test::ckpt::tensor(
          big.shape, "UInt8",
          std::string(reinterpret_cast<const char*>(big.data.data()) + kMindsporeSliceBytes, 3)));
  std::ifstream file(dir / "big.ckpt", std::ios::binary);
  file.seekg(-static_cast<std::streamoff>(tail.size()), std::ios::end);
  std::string last(tail.size(), '\0');
  file.read(last.data(), static_cast<std::streamsize>(last.size()));
  CHECK(last == tail);
  const auto source = open_mindspore_checkpoint(dir / "big.ckpt");
  REQUIRE(source->entries().size() == 1);
  CHECK(source->entries()[0].shape == big.shape);
  CHECK(source->read("embedding.weight").data == big.data);
}
