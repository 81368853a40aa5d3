// AllreduceSplit: how a model's gradients are grouped into buckets, each
// averaged across ranks by one AllReduce, in every form users write it. The
// trainer reads it (`--set allreduce_split=...`); `parity tune-allreduce`
// prints its answer in it. Parameters are numbered in forward (registration)
// order, 0 .. n-1; a bucket is a contiguous, inclusive index range.
//
//   none            one bucket per parameter (no fusion)
//   one             a single bucket holding every gradient
//   index:[85,160]  the inclusive END index of each segment, as the seeds'
//                   guide reads MindSpore's all_reduce_fusion_config=[85, 160]:
//                   parameters 0..85, then 86..160. Indices past the last
//                   parameter are an error; parameters after the last index
//                   form one more segment.
//   split:[85,160]  the same numbers read as SPLIT POINTS, as other MindSpore
//                   versions do: segments [0,85), [85,160), [160,n). The
//                   difference is the off-by-one that makes a copied split
//                   silently change between versions, so a bare "[85,160]" is
//                   refused and names both readings.
//   mb:25           PyTorch DDP's bucket_cap_mb: walking from the last
//                   parameter backwards, a bucket closes once it holds at least
//                   the cap (MiB); the first closes at 1 MiB as DDP's does.
//   ddp             mb:25, DDP's default.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parity::profiler {

struct GradientBucket {
  std::uint32_t first = 0, last = 0;  // inclusive parameter indices, forward order
  bool operator==(const GradientBucket&) const = default;
};

class AllreduceSplit {
 public:
  enum class Form { kPerParameter, kSingle, kEndIndices, kSplitPoints, kSizeCap };

  // Throws parity::Error naming `where` (a config key, an option) for text
  // that is none of the forms above.
  static AllreduceSplit parse(std::string_view text, std::string_view where);

  Form form() const { return form_; }
  // The buckets, in forward order, for parameters of these sizes in bytes;
  // throws parity::Error (naming `where`) when an index is out of range.
  std::vector<GradientBucket> buckets(std::span<const std::uint64_t> param_bytes,
                                      std::string_view where) const;
  std::string text() const;  // the canonical spelling, which parse() reads back

 private:
  Form form_ = Form::kSizeCap;
  std::vector<std::int64_t> indices_;
  double cap_mb_ = 25.0;
};

// DDP's first bucket cap (torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES).
inline constexpr std::uint64_t kDdpFirstBucketBytes = 1u << 20;

// The collective lane of parity-train's AllReduce calibration sweep: AllReduces
// of growing sizes before the first step, with nothing else running, that the
// AllReduce tuner reads as the idle cost of each size.
inline constexpr const char* kCalibrationLane = "allreduce_calibration";

// The buckets of DDP's assignment by size: from the last parameter backwards,
// closing a bucket once it holds >= the first cap, then >= `cap_bytes`.
std::vector<GradientBucket> size_capped_buckets(
    std::span<const std::uint64_t> param_bytes, std::uint64_t cap_bytes,
    std::uint64_t first_cap_bytes = kDdpFirstBucketBytes);

// "index:[85,160]" and "split:[86,161]" for the same buckets (which must
// cover 0..n-1 contiguously, in forward order).
std::string end_index_text(std::span<const GradientBucket> buckets);
std::string split_point_text(std::span<const GradientBucket> buckets);

}  // namespace parity::profiler
