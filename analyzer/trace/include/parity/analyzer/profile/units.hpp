// How the profile reports write times, shares, sizes and rates.
#pragma once

#include <cstdint>
#include <string>

namespace parity::analyzer {

std::string format_duration(double ns);       // "812 ns", "12.4 us", "3.21 ms", "1.50 s"
std::string format_percent(double fraction);  // 0.1234 -> "12.3%"
std::string format_bytes(double bytes);       // "25.0 MB" (decimal units, as bandwidths are)
std::string format_gbps(double gb_per_s);     // "11.2 GB/s"

}  // namespace parity::analyzer
