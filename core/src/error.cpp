#include "parity/core/error.hpp"

namespace parity {
namespace {

std::string format_message(const std::string& what, const std::string& where,
                           const std::string& hint) {
  std::string message = what;
  if (!where.empty()) message += " (" + where + ")";
  if (!hint.empty()) message += "\n  hint: " + hint;
  return message;
}

}  // namespace

Error::Error(std::string what, std::string where, std::string hint)
    : std::runtime_error(format_message(what, where, hint)),
      what_(std::move(what)),
      where_(std::move(where)),
      hint_(std::move(hint)) {}

}  // namespace parity
