// Shortening long op and kernel names for a table column. Demangled kernel
// names run to hundreds of characters, and the kernels of one library share
// their start (the function name) and often their end (a parameter list that
// repeats the template arguments): cutting a fixed middle out of each makes
// rows look identical. The display form here keeps the function name and the
// end of the template arguments, drops a kernel's `void ` and parameter list
// when the name is too wide, and shows the part where names of one column
// differ, so that distinct names always stay distinct.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace parity::analyzer {

inline constexpr std::size_t kNameWidth = 72;  // columns of a name in a text table
inline constexpr const char* kEllipsis = "\u2026";

// The display form of each of `names` (one table column), at most `width`
// columns wide where that keeps distinct names distinct; equal names get
// equal forms, a name that fits is unchanged. `width` below 24 counts as 24.
std::vector<std::string> shorten_names(const std::vector<std::string>& names,
                                       std::size_t width = kNameWidth);

}  // namespace parity::analyzer
