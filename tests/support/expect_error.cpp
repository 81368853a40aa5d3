#include "expect_error.hpp"

#include <catch2/catch.hpp>

#include "parity/core/error.hpp"

namespace parity::test {

void expect_error(const std::function<void()>& action, const std::string& what,
                  std::initializer_list<std::string> where_parts) {
  try {
    action();
    std::string where;
    for (const std::string& part : where_parts) where += (where.empty() ? "" : " ") + part;
    FAIL("no error at " << where << "; expected: " << what);
  } catch (const Error& e) {
    INFO(e.what());
    CHECK_THAT(e.what_failed(), Catch::Contains(what));
    for (const std::string& part : where_parts) CHECK_THAT(e.where(), Catch::Contains(part));
    CHECK_FALSE(e.hint().empty());
  }
}

void expect_error(const std::function<void()>& action, const std::string& what,
                  const std::filesystem::path& file, const std::string& where) {
  expect_error(action, what, {file.string(), where});
}

}  // namespace parity::test
