// The check that an action is refused with a parity::Error that says what
// failed, where, and what to do about it.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>

namespace parity::test {

// Runs `action`, expecting a parity::Error whose what_failed() holds `what`,
// whose where() holds each of `where_parts`, and whose hint() is not empty.
void expect_error(const std::function<void()>& action, const std::string& what,
                  std::initializer_list<std::string> where_parts);

// The same for a fault in `file`: where() holds the file's path and `where`
// (a member, a tensor, an offset; empty for none).
void expect_error(const std::function<void()>& action, const std::string& what,
                  const std::filesystem::path& file, const std::string& where = {});

}  // namespace parity::test
