#include "ascend/ascend_kernel_details.hpp"

namespace parity::importers::trace {

std::vector<KernelDetail> parse_kernel_details(const CsvTable& table) {
  constexpr int kUsDigits = 3;  // us -> ns
  const bool has_steps = table.has_column("Step Id");
  const std::size_t step = has_steps ? table.column("Step Id") : 0;
  const std::size_t type = table.column("Type"), core = table.column("Accelerator Core");
  const std::size_t start = table.column("Start Time(us)"), dur = table.column("Duration(us)");
  std::vector<KernelDetail> kernels;
  kernels.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    KernelDetail kernel;
    if (has_steps && !row.cells[step].empty()) kernel.step = table.integer(row, step);
    kernel.type = row.cells[type];
    kernel.core = row.cells[core];
    kernel.start_ns = table.decimal_ns(row, start, kUsDigits);
    kernel.dur_ns = table.decimal_ns(row, dur, kUsDigits);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace parity::importers::trace
