#include "reference.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "process.hpp"
#include "temp_dir.hpp"

namespace {

std::vector<char> slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::vector<std::string> Reference::values(const std::string& name) const {
  for (const auto& line : lines)
    if (!line.empty() && line[0] == name) return {line.begin() + 1, line.end()};
  FAIL("data_reference.py printed no line '" << name << "'");
  return {};
}

std::vector<std::vector<std::string>> Reference::all(const std::string& name) const {
  std::vector<std::vector<std::string>> found;
  for (const auto& line : lines)
    if (!line.empty() && line[0] == name) found.emplace_back(line.begin() + 1, line.end());
  return found;
}

std::vector<std::int64_t> Reference::shape(const std::string& name) const {
  std::vector<std::int64_t> dims;
  for (const auto& value : values(name)) dims.push_back(std::stoll(value));
  return dims;
}

std::vector<float> Reference::floats(const std::string& name) const {
  const auto raw = slurp(dir / (name + ".f32"));
  REQUIRE(raw.size() % sizeof(float) == 0);
  std::vector<float> data(raw.size() / sizeof(float));
  std::memcpy(data.data(), raw.data(), raw.size());  // little-endian host, as written
  return data;
}

std::vector<std::uint8_t> Reference::bytes(const std::string& name) const {
  const auto raw = slurp(dir / (name + ".u8"));
  return {raw.begin(), raw.end()};
}

parity::trainer::FloatImage Reference::image(const std::string& name) const {
  const auto dims = shape(name);
  REQUIRE(dims.size() == 3);
  parity::trainer::FloatImage image(dims[0], dims[1], dims[2]);
  image.data = floats(name);
  REQUIRE(image.data.size() == static_cast<std::size_t>(dims[0] * dims[1] * dims[2]));
  return image;
}

parity::trainer::Sample Reference::chw_sample(const std::string& name) const {
  const auto dims = shape(name);
  REQUIRE(dims.size() == 3);
  const auto planes = bytes(name);
  REQUIRE(planes.size() == static_cast<std::size_t>(dims[0] * dims[1] * dims[2]));
  parity::trainer::Sample sample;
  sample.channels = dims[0];
  sample.height = dims[1];
  sample.width = dims[2];
  sample.pixels.resize(planes.size());
  const std::int64_t pixels = dims[1] * dims[2];
  for (std::int64_t c = 0; c < dims[0]; ++c)
    for (std::int64_t p = 0; p < pixels; ++p)
      sample.pixels[static_cast<std::size_t>(p * dims[0] + c)] =
          planes[static_cast<std::size_t>(c * pixels + p)];
  return sample;
}

Reference run_reference(const std::string& command, const std::filesystem::path& dir,
                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {PARITY_PYTHON, PARITY_DATA_REFERENCE, command, dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult result = run_process(argv);
  if (result.exit_code != 0) {
    const bool missing = result.err.find("No module named") != std::string::npos;
    FAIL(PARITY_PYTHON " data_reference.py " << command << " failed (exit " << result.exit_code
                                             << "):\n"
                                             << result.err
                                             << (missing ? "\nthe reference needs Debian's "
                                                           "python3-torch, python3-torchvision, "
                                                           "python3-pil and python3-numpy "
                                                           "(scripts/setup.sh installs them)"
                                                         : ""));
  }
  Reference reference;
  reference.dir = dir;
  std::istringstream text(result.out);
  std::string line;
  while (std::getline(text, line)) {
    std::istringstream words(line);
    std::vector<std::string> split;
    std::string word;
    while (words >> word) split.push_back(word);
    if (!split.empty()) reference.lines.push_back(std::move(split));
  }
  return reference;
}

const Reference& torch_transforms_reference() {
  static TempDir dir;
  static const Reference reference = run_reference("transforms", dir.path());
  return reference;
}

const Reference& pil_jpeg_reference() {
  static TempDir dir;
  static const Reference reference = run_reference("jpeg", dir.path());
  return reference;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double difference = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (std::isnan(difference)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, difference);
  }
  return worst;
}
