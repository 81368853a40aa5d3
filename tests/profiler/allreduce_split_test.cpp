#include "parity/profiler/allreduce_split.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "parity/core/error.hpp"

using parity::profiler::AllreduceSplit;
using parity::profiler::GradientBucket;

namespace {

std::vector<GradientBucket> buckets_of(const std::string& text, std::size_t params,
                                       std::uint64_t bytes_each = 4) {
  const std::vector<std::uint64_t> sizes(params, bytes_each);
  return AllreduceSplit::parse(text, "test").buckets(sizes, "test");
}

std::string error_of(const std::string& text, std::size_t params = 161) {
  try {
    buckets_of(text, params);
  } catch (const parity::Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the seeds' [85,160] reads as inclusive ends or as split points, never both", "[unit]") {
  // ResNet-50 has 161 parameters (53 convs, 53 BN weight/bias pairs, fc weight and bias).
  CHECK(buckets_of("index:[85,160]", 161) == std::vector<GradientBucket>{{0, 85}, {86, 160}});
  CHECK(buckets_of("split:[85,160]", 161) ==
        std::vector<GradientBucket>{{0, 84}, {85, 159}, {160, 160}});
  CHECK(buckets_of("index: 85, 160", 161) == buckets_of("index:[85,160]", 161));
  // Parameters past the last end index form one more segment.
  CHECK(buckets_of("index:[85]", 161) == std::vector<GradientBucket>{{0, 85}, {86, 160}});
  const std::string bare = error_of("[85,160]");
  CHECK_THAT(bare, Catch::Contains("ambiguous"));
  CHECK_THAT(bare, Catch::Contains("index:[85,160]"));
  CHECK_THAT(bare, Catch::Contains("split:[85,160]"));
}

TEST_CASE("end-index and split-point texts of a split read back to the same buckets", "[unit]") {
  const std::vector<GradientBucket> buckets{{0, 85}, {86, 120}, {121, 160}};
  CHECK(parity::profiler::end_index_text(buckets) == "index:[85,120,160]");
  CHECK(parity::profiler::split_point_text(buckets) == "split:[86,121,161]");
  CHECK(buckets_of(parity::profiler::end_index_text(buckets), 161) == buckets);
  CHECK(buckets_of(parity::profiler::split_point_text(buckets), 161) == buckets);
}

TEST_CASE("none and one are the two extremes", "[unit]") {
  CHECK(buckets_of("none", 3) == std::vector<GradientBucket>{{0, 0}, {1, 1}, {2, 2}});
  CHECK(buckets_of("one", 3) == std::vector<GradientBucket>{{0, 2}});
  CHECK(AllreduceSplit::parse(" one ", "k").text() == "one");
}

TEST_CASE("size caps follow DDP: backwards from the last parameter, 1 MiB first", "[unit]") {
  const std::uint64_t mib = 1u << 20;
  // Sizes in forward order; DDP walks 5, 4, 3, ... and closes at >= the cap.
  const std::vector<std::uint64_t> sizes{mib, mib, 3 * mib, mib / 2, mib / 2, 2 * mib};
  CHECK(parity::profiler::size_capped_buckets(sizes, 2 * mib) ==
        std::vector<GradientBucket>{{0, 1}, {2, 4}, {5, 5}});
  const auto ddp = AllreduceSplit::parse("ddp", "k");
  CHECK(ddp.text() == "mb:25");
  CHECK(ddp.buckets(sizes, "k") == std::vector<GradientBucket>{{0, 4}, {5, 5}});
  CHECK(AllreduceSplit::parse("mb:0.5", "k").buckets(sizes, "k").size() == 6);
}

TEST_CASE("bad splits name the key and the valid forms", "[unit]") {
  CHECK_THAT(error_of("index:[85,161]"), Catch::Contains("161 parameters"));
  CHECK_THAT(error_of("split:[0,85]"), Catch::Contains("split points go from 1"));
  CHECK_THAT(error_of("index:[160,85]"), Catch::Contains("must increase"));
  CHECK_THAT(error_of("index:[85,x]"), Catch::Contains("'x'"));
  CHECK_THAT(error_of("index:[85,160"), Catch::Contains("closing"));
  CHECK_THAT(error_of("mb:-3"), Catch::Contains("positive"));
  CHECK_THAT(error_of("buckets"), Catch::Contains("none, one, ddp"));
  CHECK_THAT(error_of("none:3"), Catch::Contains("not an AllReduce split"));
}
