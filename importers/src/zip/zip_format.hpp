// Record layouts of the zip format (PKWARE APPNOTE 6.3) shared by the reader
// and the writer: signatures, fixed sizes, and the ZIP64 sentinels.
#pragma once

#include <cstdint>

namespace parity::importers::zip {

inline constexpr std::uint32_t kLocalHeaderSignature = 0x04034b50;
inline constexpr std::uint32_t kCentralHeaderSignature = 0x02014b50;
inline constexpr std::uint32_t kEndSignature = 0x06054b50;
inline constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
inline constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;

inline constexpr std::uint64_t kLocalHeaderSize = 30;    // before name and extra field
inline constexpr std::uint64_t kCentralHeaderSize = 46;  // before name, extra, comment
inline constexpr std::uint64_t kEndSize = 22;            // before the archive comment
inline constexpr std::uint64_t kZip64EndSize = 56;       // before its extensible data
inline constexpr std::uint64_t kZip64LocatorSize = 20;
inline constexpr std::uint64_t kMaxCommentSize = 0xffff;

// A 16- or 32-bit field holding all ones says "the value is in the ZIP64 record
// or extra field".
inline constexpr std::uint16_t kZip64Marker16 = 0xffff;
inline constexpr std::uint32_t kZip64Marker32 = 0xffffffff;
inline constexpr std::uint16_t kZip64ExtraId = 0x0001;

inline constexpr std::uint16_t kMethodStored = 0;
inline constexpr std::uint16_t kMethodDeflated = 8;

inline constexpr std::uint16_t kFlagEncrypted = 1u << 0;
inline constexpr std::uint16_t kFlagDataDescriptor = 1u << 3;
inline constexpr std::uint16_t kFlagStrongEncryption = 1u << 6;
inline constexpr std::uint16_t kFlagUtf8Name = 1u << 11;

inline constexpr std::uint16_t kVersionDeflate = 20;  // "version needed": 2.0
inline constexpr std::uint16_t kVersionZip64 = 45;    // 4.5

// Deflate emits at most 258 bytes per 2-bit code, so no honest member
// inflates to more than about 1032 times its compressed size; a directory
// claiming more is lying (a zip bomb) and is refused before inflating.
inline constexpr std::uint64_t kMaxDeflateRatio = 1032;

}  // namespace parity::importers::zip
