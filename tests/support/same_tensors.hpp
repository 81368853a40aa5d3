// The check that tensors read back are the tensors written: same order,
// names, dtypes, shapes and bytes. For the suites that link the importers.
#pragma once

#include <catch2/catch.hpp>
#include <vector>

#include "parity/importers/named_tensor.hpp"

inline void check_same_tensors(const std::vector<parity::importers::NamedTensor>& got,
                               const std::vector<parity::importers::NamedTensor>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("tensor " << expected[i].name);
    CHECK(got[i].name == expected[i].name);
    CHECK(got[i].dtype == expected[i].dtype);
    CHECK(got[i].shape == expected[i].shape);
    CHECK(got[i].data == expected[i].data);
  }
}
