// The real captures under data/ are kept gzip-compressed; the tests unpack
// each into their temporary folder before use.
#pragma once

#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fixture {

inline void gunzip(const std::filesystem::path& from, const std::filesystem::path& to) {
  gzFile in = gzopen(from.string().c_str(), "rb");
  REQUIRE(in != nullptr);
  std::ofstream out(to, std::ios::binary);
  char buffer[1 << 16];
  int read = 0;
  while ((read = gzread(in, buffer, sizeof buffer)) > 0) out.write(buffer, read);
  REQUIRE(read == 0);  // -1: a damaged fixture
  REQUIRE(gzclose(in) == Z_OK);
}

}  // namespace fixture
