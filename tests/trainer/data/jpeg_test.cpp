// JPEG decoding against PIL's, ImageFolder against torchvision's, and
// damaged files through the loader.
#include "parity/trainer/data/jpeg.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "log_capture.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/data/image_folder.hpp"
#include "parity/trainer/data/loader.hpp"
#include "parity/trainer/data/random.hpp"
#include "reference.hpp"
#include "temp_dir.hpp"

using namespace parity::trainer;
namespace fs = std::filesystem;

namespace {

// JPEGs written by PIL and PIL's decode of each.
const Reference& pil_jpegs() { return pil_jpeg_reference(); }

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::uint8_t> garbage(std::size_t size) {
  Rng rng(5);
  std::vector<std::uint8_t> bytes(size);
  for (auto& byte : bytes) byte = static_cast<std::uint8_t>(rng.next_u64());
  return bytes;
}

// The parity::Error `action` throws; fails the test if it throws nothing else.
template <typename Action>
parity::Error error_of(Action&& action) {
  try {
    action();
  } catch (const parity::Error& error) {
    return error;
  }
  FAIL("no parity::Error was thrown");
  return parity::Error("");
}

const char* const kDecoded[] = {"rgb420", "rgb444", "progressive", "gray", "cmyk"};

}  // namespace

TEST_CASE("JPEGs decode to exactly PIL's RGB pixels", "[unit]") {
  const auto& ref = pil_jpegs();
  for (const std::string name : kDecoded) {
    INFO(name);
    const Sample decoded = read_jpeg(ref.dir / (name + ".jpg"));
    const auto shape = ref.shape(name + ".hwc");
    REQUIRE(shape == std::vector<std::int64_t>{45, 67, 3});
    CHECK(decoded.height == 45);
    CHECK(decoded.width == 67);
    CHECK(decoded.channels == 3);
    // Same libjpeg-turbo, same settings: identical bytes. Grayscale is
    // replicated and CMYK converted with PIL's integer formula.
    CHECK(decoded.pixels == ref.bytes(name + ".hwc"));
  }
}

TEST_CASE("damaged JPEGs are errors naming the file and the fault", "[unit]") {
  const auto& ref = pil_jpegs();
  TempDir dir;
  const auto good = read_bytes(ref.dir / "rgb420.jpg");

  SECTION("truncated") {
    const fs::path path = dir / "cut.JPEG";
    write_bytes(path, {good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2)});
    const auto error = error_of([&] { read_jpeg(path); });
    CHECK(error.where() == path.string());
    CHECK_THAT(error.what_failed(),
               Catch::Contains("Premature end of JPEG file") && Catch::Contains("truncated"));
    CHECK_THAT(std::string(error.what()), Catch::Contains(path.string()));
  }
  SECTION("not a JPEG at all") {
    const fs::path path = dir / "noise.jpg";
    write_bytes(path, garbage(5000));
    const auto error = error_of([&] { read_jpeg(path); });
    CHECK(error.where() == path.string());
    CHECK_THAT(error.what_failed(), Catch::Contains("Not a JPEG file"));
  }
  SECTION("a JPEG header followed by noise") {
    auto bytes = garbage(3000);
    std::copy(good.begin(), good.begin() + 2, bytes.begin());  // SOI marker only
    const auto error = error_of([&] { decode_jpeg(bytes, "memory"); });
    CHECK(error.where() == "memory");
    CHECK_THAT(error.what_failed(), Catch::StartsWith("cannot decode JPEG: "));
  }
  SECTION("empty and missing files") {
    write_bytes(dir / "empty.jpg", {});
    CHECK(error_of([&] { read_jpeg(dir / "empty.jpg"); }).where() == (dir / "empty.jpg").string());
    CHECK(error_of([&] { read_jpeg(dir / "absent.jpg"); }).where() ==
          (dir / "absent.jpg").string());
  }
  // The process is intact and decodes good files after errors.
  CHECK(read_jpeg(ref.dir / "rgb420.jpg").pixels == ref.bytes("rgb420.hwc"));
}

TEST_CASE("ImageFolder lists classes and samples in torchvision's order", "[unit]") {
  TempDir dir;
  const fs::path root = dir / "train";
  fs::create_directories(root);
  const Reference ref = run_reference("folder", root);  // writes the tree, then lists it
  const ImageFolder folder(root);
  CHECK(folder.classes() == ref.values("classes"));
  const auto samples = ref.all("sample");
  REQUIRE(folder.size() == static_cast<std::int64_t>(samples.size()));
  REQUIRE(folder.size() == 10);  // the .txt file is not a sample
  for (std::int64_t i = 0; i < folder.size(); ++i) {
    const auto& expected = samples[static_cast<std::size_t>(i)];
    INFO("sample " << i);
    CHECK(folder.label(i) == std::stoi(expected[0]));
    CHECK(fs::relative(folder.path(i), root).string() == expected[1]);
    CHECK(folder.describe(i) == folder.path(i).string());
  }
  CHECK(folder.class_count() == 3);
  const Sample sample = folder.load(3);
  CHECK(sample.label == folder.label(3));
  CHECK(sample.channels == 3);
}

TEST_CASE("ImageFolder refuses folders it cannot read as torchvision would", "[unit]") {
  const auto& ref = pil_jpegs();
  TempDir dir;
  CHECK(error_of([&] { ImageFolder folder(dir / "absent"); }).where() == (dir / "absent").string());
  fs::create_directories(dir / "flat");
  fs::copy_file(ref.dir / "gray.jpg", dir / "flat" / "gray.jpg");
  CHECK_THAT(error_of([&] { ImageFolder folder(dir / "flat"); }).what_failed(),
             Catch::Contains("no class folders"));
  fs::create_directories(dir / "empty_class" / "a");
  fs::create_directories(dir / "empty_class" / "b");
  fs::copy_file(ref.dir / "gray.jpg", dir / "empty_class" / "a" / "gray.jpg");
  CHECK_THAT(error_of([&] { ImageFolder folder(dir / "empty_class"); }).what_failed(),
             Catch::Contains("class folder b holds no JPEG"));
  fs::create_directories(dir / "png" / "a");
  fs::copy_file(ref.dir / "gray.jpg", dir / "png" / "a" / "gray.jpg");
  write_bytes(dir / "png" / "a" / "photo.PNG", garbage(10));
  CHECK(error_of([&] { ImageFolder folder(dir / "png"); }).where() ==
        (dir / "png" / "a" / "photo.PNG").string());
}

TEST_CASE("damaged JPEGs stop the loader at their batch, or are skipped and counted", "[unit]") {
  const auto& ref = pil_jpegs();
  TempDir dir;
  const fs::path root = dir / "images";
  // Samples in order: a/1 a/2 a/3 a/bad1 | b/bad2 b/cmyk b/gray.
  const auto good = read_bytes(ref.dir / "rgb420.jpg");
  fs::create_directories(root / "a");
  fs::create_directories(root / "b");
  fs::copy_file(ref.dir / "rgb420.jpg", root / "a" / "1.jpg");
  fs::copy_file(ref.dir / "rgb444.jpg", root / "a" / "2.jpg");
  fs::copy_file(ref.dir / "progressive.jpg", root / "a" / "3.jpg");
  write_bytes(root / "a" / "bad1.jpg", {good.begin(), good.begin() + 700});
  write_bytes(root / "b" / "bad2.JPEG", garbage(2000));
  fs::copy_file(ref.dir / "cmyk.jpg", root / "b" / "cmyk.jpg");
  fs::copy_file(ref.dir / "gray.jpg", root / "b" / "gray.jpg");
  auto folder = std::make_shared<const ImageFolder>(root);
  REQUIRE(folder->size() == 7);
  TransformPipeline transforms;
  transforms.add<CenterCrop>(32);
  LoaderOptions options;
  options.batch_size = 3;
  options.shuffle = false;
  options.drop_last = false;
  options.num_workers = GENERATE(0, 2);
  INFO("workers " << options.num_workers);

  SECTION("without skip_corrupt the error reaches next() at the damaged file's batch") {
    Loader loader(folder, transforms, options);
    loader.start_epoch(0);
    REQUIRE(loader.next()->n == 3);
    const auto error = error_of([&] { loader.next(); });
    CHECK(error.where() == (root / "a" / "bad1.jpg").string());
    CHECK_THAT(error.what_failed(), Catch::Contains("truncated"));
    CHECK_THROWS_AS(loader.next(), parity::Error);  // until the epoch restarts
    loader.start_epoch(0, 2);
    CHECK(loader.next()->labels == std::vector<std::int32_t>{1});
    CHECK_FALSE(loader.next());
  }
  SECTION("with skip_corrupt the files are left out, counted and logged once each") {
    options.skip_corrupt = true;
    ScopedLogCapture log;
    Loader loader(folder, transforms, options);
    for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
      loader.start_epoch(epoch);
      std::vector<std::int64_t> sizes, skipped;
      while (auto batch = loader.next()) {
        sizes.push_back(batch->n);
        skipped.push_back(batch->skipped);
        CHECK(batch->images.size() == static_cast<std::size_t>(batch->n * 3 * 32 * 32));
      }
      CHECK(sizes == std::vector<std::int64_t>{3, 1, 1});
      CHECK(skipped == std::vector<std::int64_t>{0, 2, 0});
      CHECK(loader.skipped() == 2 * (epoch + 1));
    }
    const auto messages = log.messages();
    REQUIRE(messages.size() == 2);
    const std::string both = messages[0] + "\n" + messages[1];
    CHECK_THAT(both, Catch::Contains((root / "a" / "bad1.jpg").string()) &&
                         Catch::Contains((root / "b" / "bad2.JPEG").string()));
  }
}
