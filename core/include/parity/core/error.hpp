// parity::Error: the one exception type of Parity's tools and importers.
// It carries what failed, where (file, table, tensor, offset) and a hint of
// what the user can do; the CLI prints it as one message and exits with 2.
#pragma once

#include <stdexcept>
#include <string>

namespace parity {

class Error : public std::runtime_error {
 public:
  Error(std::string what, std::string where = {}, std::string hint = {});

  const std::string& what_failed() const { return what_; }
  const std::string& where() const { return where_; }
  const std::string& hint() const { return hint_; }

 private:
  std::string what_;
  std::string where_;
  std::string hint_;
};

}  // namespace parity
