// Little-endian integers in byte buffers, as zip and .npy headers store them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace parity::importers {

// The unsigned integer of sizeof(T) bytes at `bytes[offset]`; the caller
// checks the bounds.
template <class T>
T load_le(std::span<const std::byte> bytes, std::size_t offset) {
  T value = 0;
  for (std::size_t i = sizeof(T); i-- > 0;)
    value = static_cast<T>((value << 8) | std::to_integer<T>(bytes[offset + i]));
  return value;
}

// Appends `value` as sizeof(T) little-endian bytes.
template <class T>
void append_le(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xffu));
}

}  // namespace parity::importers
