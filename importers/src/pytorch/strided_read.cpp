#include "pytorch/strided_read.hpp"

#include <cstring>

namespace parity::importers {
namespace {

// Reading a span up to this much larger than the tensor costs less than the
// many small reads it saves.
constexpr std::uint64_t kSpanSlackBytes = std::uint64_t{1} << 20;

bool is_c_contiguous(const StridedView& view) {
  std::int64_t expected = 1;
  for (std::size_t d = view.shape.size(); d-- > 0;) {
    if (view.shape[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.shape[d];
  }
  return true;
}

// Calls visit(storage_element, output_element) for every element in C order.
template <class Visit>
void for_each_element(const StridedView& view, std::int64_t count, Visit&& visit) {
  std::vector<std::int64_t> index(view.shape.size(), 0);
  std::int64_t position = view.offset;
  for (std::int64_t i = 0; i < count; ++i) {
    visit(position, i);
    for (std::size_t d = view.shape.size(); d-- > 0;) {
      if (++index[d] < view.shape[d]) {
        position += view.strides[d];
        break;
      }
      position -= (view.shape[d] - 1) * view.strides[d];
      index[d] = 0;
    }
  }
}

}  // namespace

std::vector<std::byte> read_strided(const StridedView& view, const StorageByteReader& read,
                                    bool read_covered_span) {
  std::int64_t count = 1;
  std::int64_t last = view.offset;
  for (std::size_t d = 0; d < view.shape.size(); ++d) {
    count *= view.shape[d];
    if (view.shape[d] > 0) last += (view.shape[d] - 1) * view.strides[d];
  }
  const std::uint64_t element = view.element_size;
  std::vector<std::byte> out(static_cast<std::size_t>(count) * element);
  if (count == 0) return out;
  if (is_c_contiguous(view)) {
    read(static_cast<std::uint64_t>(view.offset) * element, out);
    return out;
  }

  const std::uint64_t span_bytes = static_cast<std::uint64_t>(last - view.offset + 1) * element;
  if (read_covered_span || span_bytes <= 2 * out.size() + kSpanSlackBytes) {
    std::vector<std::byte> span(span_bytes);
    read(static_cast<std::uint64_t>(view.offset) * element, span);
    for_each_element(view, count, [&](std::int64_t position, std::int64_t i) {
      std::memcpy(out.data() + i * element, span.data() + (position - view.offset) * element,
                  element);
    });
    return out;
  }

  // Runs of elements adjacent in both the storage and the output: one read each.
  std::int64_t run_start = 0, run_position = 0, run_length = 0;
  const auto flush = [&] {
    if (run_length == 0) return;
    read(static_cast<std::uint64_t>(run_position) * element,
         std::span(out).subspan(static_cast<std::size_t>(run_start) * element,
                                static_cast<std::size_t>(run_length) * element));
  };
  for_each_element(view, count, [&](std::int64_t position, std::int64_t i) {
    if (run_length > 0 && position == run_position + run_length) {
      ++run_length;
      return;
    }
    flush();
    run_start = i, run_position = position, run_length = 1;
  });
  flush();
  return out;
}

}  // namespace parity::importers
