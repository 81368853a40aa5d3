#include "parity/profiler/allreduce_split.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "parity/core/error.hpp"

namespace parity::profiler {
namespace {

constexpr const char* kForms =
    "none, one, ddp, mb:25, index:[85,160] (inclusive segment ends) or split:[85,160] (split "
    "points)";

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// "[85, 160]" or "85,160" -> {85, 160}; strictly increasing, non-negative.
std::vector<std::int64_t> parse_index_list(std::string_view text, std::string_view where) {
  std::string_view list = trim(text);
  if (!list.empty() && list.front() == '[') {
    if (list.back() != ']')
      throw Error("the index list '" + std::string(text) + "' has no closing ']'",
                  std::string(where), "write it like [85,160]");
    list = list.substr(1, list.size() - 2);
  }
  std::vector<std::int64_t> indices;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = trim(list.substr(0, comma));
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() || value < 0)
      throw Error("'" + std::string(item) + "' in '" + std::string(text) +
                      "' is not a parameter index (a whole number from 0)",
                  std::string(where), "write the indices like [85,160]");
    if (!indices.empty() && value <= indices.back())
      throw Error("the indices of '" + std::string(text) + "' must increase", std::string(where),
                  "list each segment's boundary once, in forward order");
    indices.push_back(value);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return indices;
}

double parse_megabytes(std::string_view text, std::string_view where) {
  const std::string item(trim(text));
  char* end = nullptr;
  const double value = std::strtod(item.c_str(), &end);
  if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(value) || value <= 0)
    throw Error("'" + item + "' is not a bucket size in MiB (a positive number)",
                std::string(where), "write it like mb:25");
  return value;
}

std::string index_list_text(const std::vector<std::int64_t>& indices) {
  std::string text = "[";
  for (std::size_t i = 0; i < indices.size(); ++i)
    text += (i ? "," : "") + std::to_string(indices[i]);
  return text + "]";
}

std::string megabytes_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// Segments from their exclusive ends; the last end is n.
std::vector<GradientBucket> buckets_from_ends(const std::vector<std::int64_t>& ends) {
  std::vector<GradientBucket> buckets;
  std::int64_t first = 0;
  for (const std::int64_t end : ends) {
    if (end <= first) continue;
    buckets.push_back({static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(end - 1)});
    first = end;
  }
  return buckets;
}

}  // namespace

AllreduceSplit AllreduceSplit::parse(std::string_view given, std::string_view where) {
  const std::string_view text = trim(given);
  AllreduceSplit split;
  const std::size_t colon = text.find(':');
  const std::string_view kind = colon == std::string_view::npos ? text : text.substr(0, colon);
  const std::string_view value =
      colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  const bool has_value = colon != std::string_view::npos;
  if (kind == "none" && !has_value) {
    split.form_ = Form::kPerParameter;
  } else if (kind == "one" && !has_value) {
    split.form_ = Form::kSingle;
  } else if (kind == "ddp" && !has_value) {
    split.form_ = Form::kSizeCap;
    split.cap_mb_ = 25.0;
  } else if (kind == "mb" && has_value) {
    split.form_ = Form::kSizeCap;
    split.cap_mb_ = parse_megabytes(value, where);
  } else if (kind == "index" && has_value) {
    split.form_ = Form::kEndIndices;
    split.indices_ = parse_index_list(value, where);
  } else if (kind == "split" && has_value) {
    split.form_ = Form::kSplitPoints;
    split.indices_ = parse_index_list(value, where);
  } else if (!text.empty() &&
             (text.front() == '[' || (text.front() >= '0' && text.front() <= '9'))) {
    throw Error("'" + std::string(text) +
                    "' is ambiguous: MindSpore versions read all_reduce_fusion_config two ways",
                std::string(where),
                "write index:" + std::string(text) +
                    " when the numbers are each segment's last index "
                    "(the seeds' guide: [85,160] = parameters 0..85 and 86..160), or split:" +
                    std::string(text) + " when they are split points ([0,85), [85,160), [160,n))");
  } else {
    throw Error("'" + std::string(text) + "' is not an AllReduce split", std::string(where),
                std::string("use one of: ") + kForms);
  }
  return split;
}

std::vector<GradientBucket> AllreduceSplit::buckets(std::span<const std::uint64_t> param_bytes,
                                                    std::string_view where) const {
  const auto n = static_cast<std::int64_t>(param_bytes.size());
  if (n == 0) return {};
  switch (form_) {
    case Form::kPerParameter: {
      std::vector<GradientBucket> buckets;
      for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(n); ++i) buckets.push_back({i, i});
      return buckets;
    }
    case Form::kSingle:
      return {{0, static_cast<std::uint32_t>(n - 1)}};
    case Form::kSizeCap:
      return size_capped_buckets(
          param_bytes, static_cast<std::uint64_t>(std::llround(cap_mb_ * 1024.0 * 1024.0)));
    case Form::kEndIndices:
    case Form::kSplitPoints: {
      const bool inclusive = form_ == Form::kEndIndices;
      const std::int64_t highest = inclusive ? n - 1 : n;
      std::vector<std::int64_t> ends;
      for (const std::int64_t index : indices_) {
        if (index > highest || (!inclusive && index == 0))
          throw Error(text() + " names index " + std::to_string(index) + ", but the model has " +
                          std::to_string(n) + " parameters",
                      std::string(where),
                      inclusive ? "segment ends go from 0 to " + std::to_string(n - 1)
                                : "split points go from 1 to " + std::to_string(n));
        ends.push_back(inclusive ? index + 1 : index);
      }
      if (ends.back() != n) ends.push_back(n);
      return buckets_from_ends(ends);
    }
  }
  return {};
}

std::string AllreduceSplit::text() const {
  switch (form_) {
    case Form::kPerParameter:
      return "none";
    case Form::kSingle:
      return "one";
    case Form::kSizeCap:
      return "mb:" + megabytes_text(cap_mb_);
    case Form::kEndIndices:
      return "index:" + index_list_text(indices_);
    case Form::kSplitPoints:
      return "split:" + index_list_text(indices_);
  }
  return {};
}

std::vector<GradientBucket> size_capped_buckets(std::span<const std::uint64_t> param_bytes,
                                                std::uint64_t cap_bytes,
                                                std::uint64_t first_cap_bytes) {
  std::vector<GradientBucket> reversed;
  std::uint64_t filled = 0;
  std::uint64_t cap = first_cap_bytes;
  std::int64_t last = static_cast<std::int64_t>(param_bytes.size()) - 1;
  for (std::int64_t i = last; i >= 0; --i) {
    filled += param_bytes[static_cast<std::size_t>(i)];
    if (filled >= cap || i == 0) {
      reversed.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(last)});
      last = i - 1;
      filled = 0;
      cap = cap_bytes;
    }
  }
  return {reversed.rbegin(), reversed.rend()};
}

std::string end_index_text(std::span<const GradientBucket> buckets) {
  std::vector<std::int64_t> ends;
  for (const GradientBucket& bucket : buckets) ends.push_back(bucket.last);
  return "index:" + index_list_text(ends);
}

std::string split_point_text(std::span<const GradientBucket> buckets) {
  std::vector<std::int64_t> points;
  for (const GradientBucket& bucket : buckets) points.push_back(std::int64_t{bucket.last} + 1);
  return "split:" + index_list_text(points);
}

}  // namespace parity::profiler
