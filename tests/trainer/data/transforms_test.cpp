// Transforms against torchvision 0.14's tensor transforms: the reference
// outputs come from data_reference.py, run once per test process.
#include "parity/trainer/data/transforms.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "parity/core/error.hpp"
#include "reference.hpp"

using namespace parity::trainer;

namespace {

// Bilinear resizing is float32 arithmetic on both sides, but torch's AVX2
// kernel fuses the blends a * w0 + b * w1 into FMAs where we round each
// product, which moves a result by an ulp or two. Values here stay below 3
// (normalized ImageNet pixels reach 2.64), where an ulp is 2.4e-7, so 1e-5
// allows ~40 ulps. The weights themselves must agree exactly: a coordinate
// near 500 rounded to float32 moves a weight by up to 3e-5, which this
// tolerance catches (it did, before we computed them as torch does). The
// smallest genuine mistake (one 8-bit level: 1/255 = 0.0039, or 0.017 once
// normalized; a tap on the wrong source pixel; a box one pixel off) is
// hundreds of times larger.
constexpr double kTolerance = 1e-5;

const Reference& torch_reference() { return torch_transforms_reference(); }

void check_close(const FloatImage& ours, const FloatImage& theirs, double tolerance) {
  REQUIRE(ours.channels == theirs.channels);
  REQUIRE(ours.height == theirs.height);
  REQUIRE(ours.width == theirs.width);
  const double difference = max_abs_difference(ours.data, theirs.data);
  INFO("largest difference " << difference);
  CHECK(difference <= tolerance);
}

void check_equal(const FloatImage& ours, const FloatImage& theirs) {
  check_close(ours, theirs, 0.0);
}

FloatImage input(const std::string& name) {
  return to_float_image(torch_reference().chw_sample(name));
}

const std::vector<float> kImageNetMean = {0.485f, 0.456f, 0.406f};
const std::vector<float> kImageNetStd = {0.229f, 0.224f, 0.225f};

}  // namespace

TEST_CASE("8-bit to float and Normalize match convert_image_dtype and normalize", "[unit]") {
  const auto& ref = torch_reference();
  FloatImage image = input("a");
  Rng rng(1);
  Normalize(kImageNetMean, kImageNetStd).apply(image, rng);
  // Same float32 subtraction and division, each correctly rounded: exact.
  check_equal(image, ref.image("a_normalize"));
}

TEST_CASE("Resize matches torchvision's bilinear resize without antialias", "[unit]") {
  const auto& ref = torch_reference();
  Rng rng(1);
  SECTION("shrinking a landscape image") {
    FloatImage image = input("a");
    CHECK(Resize::output_size(37, 53, 24) == std::pair<std::int64_t, std::int64_t>{24, 34});
    Resize(24).apply(image, rng);
    check_close(image, ref.image("a_resize24"), kTolerance);
  }
  SECTION("enlarging a portrait image") {
    FloatImage image = input("b");
    CHECK(Resize::output_size(13, 9, 20) == std::pair<std::int64_t, std::int64_t>{28, 20});
    Resize(20).apply(image, rng);
    check_close(image, ref.image("b_resize20"), kTolerance);
  }
}

TEST_CASE("Resize, CenterCrop and Normalize match torchvision's eval transforms", "[unit]") {
  const auto& ref = torch_reference();
  Rng rng(1);
  TransformPipeline small;
  small.add<Resize>(24).add<CenterCrop>(20).add<Normalize>(kImageNetMean, kImageNetStd);
  check_close(small.apply(ref.chw_sample("a"), rng), ref.image("a_eval"), kTolerance);

  TransformPipeline imagenet;
  imagenet.add<Resize>(256).add<CenterCrop>(224).add<Normalize>(kImageNetMean, kImageNetStd);
  check_close(imagenet.apply(ref.chw_sample("c"), rng), ref.image("c_eval"), kTolerance);
  CHECK(imagenet.describe() ==
        "Compose(ToTensor(), Resize(size=256, interpolation=bilinear, antialias=False), "
        "CenterCrop(size=224), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]))");
}

TEST_CASE("CenterCrop pads and rounds as torchvision's center_crop does", "[unit]") {
  const auto& ref = torch_reference();
  Rng rng(1);
  FloatImage padded = input("b");  // 13 x 9 into 16 x 16: zeros around
  CenterCrop(16).apply(padded, rng);
  check_equal(padded, ref.image("b_center16"));
  FloatImage cropped = input("b");  // offsets round(2.5) = 2 and round(0.5) = 0
  CHECK(CenterCrop(8).box(13, 9) == CropBox{2, 0, 8, 8});
  CenterCrop(8).apply(cropped, rng);
  check_equal(cropped, ref.image("b_center8"));
}

TEST_CASE("RandomResizedCrop crops and resizes as torchvision's resized_crop", "[unit]") {
  const auto& ref = torch_reference();
  const FloatImage a = input("a");
  check_close(RandomResizedCrop(16).apply_box(a, {5, 7, 20, 30}), ref.image("a_resized_crop"),
              kTolerance);
  check_close(RandomResizedCrop(32).apply_box(a, {3, 11, 9, 13}), ref.image("a_resized_crop_up"),
              kTolerance);
  check_close(RandomResizedCrop(224).apply_box(input("c"), {40, 61, 301, 222}),
              ref.image("c_resized_crop"), kTolerance);

  // apply() is apply_box() of the box params() draws from the same state.
  const RandomResizedCrop transform(24);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng draw(seed), use(seed);
    const CropBox box = transform.params(a.height, a.width, draw);
    FloatImage image = a;
    transform.apply(image, use);
    check_equal(image, transform.apply_box(a, box));
  }
}

TEST_CASE("RandomResizedCrop falls back to torchvision's central box", "[unit]") {
  // No try fits a 4 x 200 image (every drawn height is at least 7), so
  // torchvision's get_params returns its fallback whatever its RNG says.
  const auto& ref = torch_reference();
  const auto expected = [&](const std::string& name) {
    const auto v = ref.values(name);
    REQUIRE(v.size() == 4);
    return CropBox{std::stoll(v[0]), std::stoll(v[1]), std::stoll(v[2]), std::stoll(v[3])};
  };
  const RandomResizedCrop transform(8);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    CHECK(transform.params(4, 200, rng) == expected("fallback_wide"));
    CHECK(transform.params(200, 4, rng) == expected("fallback_tall"));
  }
}

TEST_CASE("RandomResizedCrop draws boxes within its scale and ratio ranges", "[unit]") {
  const RandomResizedCrop transform(16);
  Rng rng(7);
  // Square, so tall and wide boxes fit equally often.
  const std::int64_t height = 128, width = 128;
  double smallest = 1, largest = 0;
  int tall = 0, wide = 0;
  for (int i = 0; i < 4000; ++i) {
    const CropBox box = transform.params(height, width, rng);
    REQUIRE(box.top >= 0);
    REQUIRE(box.left >= 0);
    REQUIRE(box.top + box.height <= height);
    REQUIRE(box.left + box.width <= width);
    const double area = static_cast<double>(box.height * box.width) / (height * width);
    const double ratio = static_cast<double>(box.width) / static_cast<double>(box.height);
    // Sides are rounded to whole pixels: allow half a pixel on each.
    const double slack_w = 0.5 / static_cast<double>(box.width),
                 slack_h = 0.5 / static_cast<double>(box.height);
    CHECK(area >= 0.08 * (1 - slack_w) * (1 - slack_h));
    CHECK(ratio >= 0.75 * (1 - slack_w) / (1 + slack_h));
    CHECK(ratio <= 4.0 / 3.0 * (1 + slack_w) / (1 - slack_h));
    smallest = std::min(smallest, area);
    largest = std::max(largest, area);
    if (ratio != 1) (ratio < 1 ? tall : wide) += 1;
  }
  // The whole range is used, both orientations alike (log-uniform ratio):
  // the difference has a standard deviation below sqrt(4000) = 63.
  CHECK(smallest < 0.09);
  CHECK(largest > 0.95);
  CHECK(std::abs(tall - wide) < 300);
}

TEST_CASE("RandomCrop pads with zeros and crops where its parameters say", "[unit]") {
  const auto& ref = torch_reference();
  const FloatImage a = input("a");  // 37 x 53, padded to 45 x 61
  const RandomCrop transform(32, 4);
  // torchvision: crop(pad(img, 4), 2, 9, 32, 32); our box is in unpadded coordinates.
  check_equal(transform.apply_box(a, {2 - 4, 9 - 4, 32, 32}), ref.image("a_pad_crop"));

  // Offsets are uniform over every placement in the padded image.
  std::vector<int> tops(45 - 32 + 1), lefts(61 - 32 + 1);
  Rng rng(3);
  for (int i = 0; i < 6000; ++i) {
    Rng use = rng;
    const CropBox box = transform.params(a.height, a.width, rng);
    ++tops.at(static_cast<std::size_t>(box.top + 4));
    ++lefts.at(static_cast<std::size_t>(box.left + 4));
    if (i < 10) {
      FloatImage image = a;
      transform.apply(image, use);
      check_equal(image, transform.apply_box(a, box));
    }
  }
  // 6000 draws over 14 places: 429 expected each, standard deviation 20.
  for (const int count : tops) CHECK(std::abs(count - 6000.0 / 14) < 100);
  for (const int count : lefts) CHECK(count > 100);
}

TEST_CASE("RandomHorizontalFlip mirrors as hflip, with probability p", "[unit]") {
  const auto& ref = torch_reference();
  const FloatImage a = input("a");
  FloatImage flipped = a;
  flip_horizontal(flipped);
  check_equal(flipped, ref.image("a_flip"));

  Rng rng(11);
  int flips = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    FloatImage image = a;
    RandomHorizontalFlip(0.5).apply(image, rng);
    if (image.data != a.data) {
      REQUIRE(image.data == flipped.data);
      ++flips;
    }
  }
  // Binomial(4000, 0.5): standard deviation 32; 5 of them is 160.
  CHECK(std::abs(flips - draws / 2) < 160);
  FloatImage never = a, always = a;
  RandomHorizontalFlip(0.0).apply(never, rng);
  RandomHorizontalFlip(1.0).apply(always, rng);
  CHECK(never.data == a.data);
  CHECK(always.data == flipped.data);
}

TEST_CASE("Fashion-MNIST transforms match torchvision's pad, crop, flip, normalize, expand",
          "[unit]") {
  const auto& ref = torch_reference();
  Rng rng(1);
  TransformPipeline eval;
  eval.add<CenterCrop>(32).add<Normalize>(std::vector<float>{0.2860f}, std::vector<float>{0.3530f});
  eval.add<GrayToRgb>();
  check_equal(eval.apply(ref.chw_sample("g"), rng), ref.image("g_eval"));

  // The training path with a chosen crop and the flip taken.
  FloatImage image = input("g");
  CenterCrop(32).apply(image, rng);
  image = RandomCrop(32, 4).apply_box(image, {7 - 4, 1 - 4, 32, 32});
  flip_horizontal(image);
  check_equal(image, ref.image("g_train_box"));
}

TEST_CASE("transforms refuse images they cannot handle", "[unit]") {
  Rng rng(1);
  FloatImage gray(1, 10, 10), two(2, 10, 10), rgb(3, 10, 10);
  CHECK_THROWS_AS(RandomCrop(20, 4).apply(gray, rng), parity::Error);
  CHECK_THROWS_AS(Normalize(kImageNetMean, kImageNetStd).apply(gray, rng), parity::Error);
  CHECK_THROWS_AS(GrayToRgb().apply(two, rng), parity::Error);
  CHECK_THROWS_AS(Normalize({0.5f}, {0.0f}), parity::Error);
  CHECK_THROWS_AS(RandomResizedCrop(0), parity::Error);
  GrayToRgb().apply(rgb, rng);
  CHECK(rgb.channels == 3);
}
