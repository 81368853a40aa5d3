// Op categories: the map's patterns, precedence and errors, and the
// attribution of the hand-made small trace's steps (small_trace.hpp) by
// category, against the numbers worked out there.
#include "parity/analyzer/profile/category_analysis.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "expect_error.hpp"
#include "parity/analyzer/profile/category_diff.hpp"
#include "parity/analyzer/profile/rank_profile.hpp"
#include "small_trace.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;
using Catch::Detail::Approx;
using small_trace::kMs;

namespace {

std::string category_name(const OpCategoryMap& map, std::string_view op) {
  const auto index = map.category_of(op);
  return index ? map.categories()[*index].name : "none";
}

CategoryProfile small_categories(const TempDir& dir, const OpCategoryMap& map) {
  small_trace::write(dir / "small.db");
  const TraceData trace = load_trace(dir / "small.db");
  return analyze_categories(trace, analyze_trace(trace, Thresholds{}).steps, map);
}

const CategoryTime& find(const std::vector<CategoryTime>& times, const std::string& name) {
  for (const CategoryTime& time : times)
    if (time.category == name) return time;
  FAIL("no category " << name);
  throw;
}

// Expects the map in `text` to be refused for `what` at `line` of its file.
void expect_map_error(const TempDir& dir, const std::string& text, const std::string& what,
                      const std::string& line) {
  const auto path = dir / "map.yaml";
  std::ofstream(path) << text;
  INFO(text);
  parity::test::expect_error([&] { OpCategoryMap::with_file(path); }, what, path, line);
}

}  // namespace

TEST_CASE("the built-in map puts each framework's names of one kind of work together", "[unit]") {
  const OpCategoryMap map = OpCategoryMap::builtin();
  for (const char* name :
       {"aten::conv2d", "aten::mkldnn_convolution", "ConvolutionBackward0",
        "autograd::engine::evaluate_function: ConvolutionBackward0", "conv2d_backward", "Conv2D",
        "Conv2DBackpropFilter", "sm90_xmma_dgrad_implicit_gemm_nhwc_cudnn", "convolution"})
    CHECK(category_name(map, name) == "convolution");
  for (const char* name : {"aten::native_batch_norm", "NativeBatchNormBackward0", "batch_norm_relu",
                           "BatchNorm", "cudnn::bn_fw_tr_1C11_kernel_NCHW"})
    CHECK(category_name(map, name) == "normalization");
  for (const char* name : {"aten::addmm", "AddmmBackward0", "linear_backward", "MatMul",
                           "ampere_sgemm_128x64_tn", "cutlass_80_tensorop_s1688gemm"})
    CHECK(category_name(map, name) == "matmul");
  for (const char* name : {"Optimizer.step#SGD.step", "optimizer", "sgd_update", "ApplyMomentum"})
    CHECK(category_name(map, name) == "optimizer");
  for (const char* name :
       {"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "data_wait", "GetNext"})
    CHECK(category_name(map, name) == "data loading");
  for (const char* name : {"gloo:all_reduce", "nccl:all_reduce", "AllReduce",
                           "ncclDevKernel_AllReduce_Sum_f32_RING_LL"})
    CHECK(category_name(map, name) == "communication");
  for (const char* name :
       {"aten::cross_entropy_loss", "NllLossBackward0", "NLLLoss", "SoftmaxCrossEntropyWithLogits"})
    CHECK(category_name(map, name) == "loss");
  CHECK(category_name(map, "aten::relu_") == "activation");
  CHECK(category_name(map, "ReluGrad") == "activation");
  CHECK(category_name(map, "aten::max_pool2d") == "pooling");
  CHECK(category_name(map, "aten::add_") == "elementwise");
  CHECK(category_name(map, "reorder") == "memory");
  CHECK(category_name(map, "Memcpy HtoD (Pageable -> Device)") == "memory");
  // A record_function of the user's that merely mentions a loss is not one.
  CHECK(category_name(map, "forward_and_loss") == "none");
  CHECK(category_name(map, "ProfilerStep#3") == "none");

  CHECK(map.phase_of("ConvolutionBackward0") == OpPhase::kBackward);
  CHECK(map.phase_of("conv2d_backward") == OpPhase::kBackward);
  CHECK(map.phase_of("ReluGrad") == OpPhase::kBackward);
  CHECK(map.phase_of("Conv2DBackpropInput") == OpPhase::kBackward);
  CHECK(map.phase_of("forward") == OpPhase::kForward);
  CHECK(map.phase_of("aten::conv2d") == OpPhase::kUnknown);
  CHECK(map.phase_of("Optimizer.zero_grad#SGD.zero_grad") == OpPhase::kUnknown);
}

TEST_CASE("a user's map goes before the built-in one, or alone with builtin: false", "[unit]") {
  TempDir dir;
  const auto path = dir / "mine.yaml";
  std::ofstream(path) << "categories:\n"
                         "  - name: attention\n"
                         "    patterns: ['*flash*', 're:^sdpa_']\n"
                         "  - name: convolution\n"
                         "    patterns: ['my_conv_op']\n"
                         "  - name: optimizer\n"
                         "    patterns: ['my_step']\n"
                         "phases:\n"
                         "  backward: ['*_bw']\n";
  const OpCategoryMap map = OpCategoryMap::with_file(path);
  CHECK(map.description() == "built-in + " + path.string());
  CHECK(map.categories().front().name == "attention");
  CHECK(category_name(map, "FlashAttnKernel") == "attention");  // globs ignore case
  CHECK(category_name(map, "sdpa_forward") == "attention");
  CHECK(category_name(map, "SDPA_forward") == "none");  // regexes keep it
  CHECK(category_name(map, "my_conv_op") == "convolution");
  CHECK(category_name(map, "aten::conv2d") == "convolution");  // the built-in's patterns stay
  CHECK(map.phase_of("my_conv_op_bw") == OpPhase::kBackward);
  // Patterns added to a built-in category leave its claims_nested as it was.
  const auto optimizer = map.category_of("my_step");
  REQUIRE(optimizer);
  CHECK(map.categories()[*optimizer].name == "optimizer");
  CHECK(map.categories()[*optimizer].claims_nested);
  CHECK(map.categories().size() == OpCategoryMap::builtin().categories().size() + 1);

  std::ofstream(path) << "builtin: false\ncategories:\n  - {name: conv, patterns: ['*conv*']}\n";
  const OpCategoryMap alone = OpCategoryMap::with_file(path);
  CHECK(alone.categories().size() == 1);
  CHECK(category_name(alone, "aten::addmm") == "none");
}

TEST_CASE("a bad op-category map is refused with its file and line", "[unit]") {
  TempDir dir;
  expect_map_error(dir, "categories:\n  - name: conv\n    patterns: ['re:(']\n",
                   "bad regular expression", ":3");
  expect_map_error(dir, "categories:\n  - name: conv\n    pattern: ['*conv*']\n",
                   "unknown key 'pattern'", ":3");
  expect_map_error(dir, "categories:\n  - name: conv\n", "has no patterns", ":2");
  expect_map_error(dir, "categories:\n  - patterns: ['x']\n", "needs a name", ":2");
  expect_map_error(dir, "categories: [\n", "not valid YAML", ":");
  expect_map_error(dir, "categories:\n  - {name: a, patterns: [x], claims_nested: maybe}\n",
                   "true or false", ":2");
  expect_map_error(dir, "phases:\n  sideways: [x]\n", "unknown key 'sideways'", ":2");
  parity::test::expect_error([&] { OpCategoryMap::with_file(dir / "missing.yaml"); }, "cannot open",
                             dir / "missing.yaml");
}

TEST_CASE("the small trace's steps by category add up to the step, by self time", "[unit]") {
  TempDir dir;
  const CategoryProfile profile = small_categories(dir, OpCategoryMap::builtin());
  CHECK(profile.steps == 3);
  CHECK(profile.step_ns == 30 * kMs);
  // Per steady step (ms): data_wait 1, optimizer 1.5, conv2d 1.8 + conv2d_backward
  // 2.8, linear 0.8 + linear_backward 0.8, reorder 0.05; the forward and backward
  // phases' own time (0.35 + 0.4) and the idle 0.5 are uncategorised.
  CHECK(find(profile.host, "data loading").total_ns == Approx(3 * 1.0 * kMs));
  CHECK(find(profile.host, "optimizer").total_ns == Approx(3 * 1.5 * kMs));
  const CategoryTime& conv = find(profile.host, "convolution");
  CHECK(conv.total_ns == Approx(3 * 4.6 * kMs));
  CHECK(conv.forward_ns == Approx(3 * 1.8 * kMs));
  CHECK(conv.backward_ns == Approx(3 * 2.8 * kMs));
  CHECK(find(profile.host, "matmul").total_ns == Approx(3 * 1.6 * kMs));
  CHECK(find(profile.host, "memory").total_ns == Approx(3 * 0.05 * kMs));
  CHECK(profile.host.back().category == kUncategorised);
  CHECK(profile.host.back().total_ns == Approx(3 * 1.25 * kMs));
  CHECK(profile.paired_share() == Approx(8.75 / 10));
  // Kernels, half their op each: device time, none of the start-up reorder's.
  CHECK(find(profile.device, "convolution").total_ns == Approx(3 * 2.3 * kMs));
  CHECK(find(profile.device, "matmul").total_ns == Approx(3 * 0.8 * kMs));
  CHECK(find(profile.device, "memory").total_ns == Approx(3 * 0.025 * kMs));
  CHECK(profile.device_ns == Approx(9.375 * kMs));
}

TEST_CASE("a claims_nested category takes the time of everything inside its ranges", "[unit]") {
  TempDir dir;
  const auto path = dir / "forward.yaml";
  std::ofstream(path) << "categories:\n  - {name: forward pass, claims_nested: true, patterns: "
                         "[forward]}\n";
  const CategoryProfile profile = small_categories(dir, OpCategoryMap::with_file(path));
  // The whole forward phase, its convolution, matmul and reorder included.
  CHECK(find(profile.host, "forward pass").total_ns == Approx(3 * 3.0 * kMs));
  CHECK(find(profile.host, "convolution").total_ns == Approx(3 * 2.8 * kMs));
  CHECK(find(profile.host, "matmul").total_ns == Approx(3 * 0.8 * kMs));
  CHECK(find(profile.host, "memory").total_ns == 0);
}

TEST_CASE("the category diff ranks where B spends more first and keeps uncategorised last",
          "[unit]") {
  CategoryProfile a, b;
  a.steps = 2;
  a.step_ns = 20;
  a.host = {{"convolution", 8}, {"matmul", 6}, {"idle", 0}, {kUncategorised, 6}};
  b.steps = 1;
  b.step_ns = 12;
  b.host = {{"convolution", 7, 3, 4}, {"matmul", 2}, {"idle", 0}, {kUncategorised, 3}};
  const CategoryDiff diff = diff_categories(a, b);
  REQUIRE(diff.host.size() == 3);  // idle: neither run has any
  CHECK(diff.host[0].category == "convolution");
  CHECK(diff.host[0].a.time_per_step_ns == 4);
  CHECK(diff.host[0].b.time_per_step_ns == 7);
  CHECK(diff.host[0].b.step_share == Approx(7.0 / 12));
  CHECK(diff.host[0].b.backward_per_step_ns == 4);
  CHECK(diff.host[1].category == "matmul");
  CHECK(diff.host[2].category == kUncategorised);
  CHECK(diff.a_paired_share == Approx(0.7));
  CHECK(diff.b_paired_share == Approx(0.75));
  const nlohmann::json json = to_json(diff);
  CHECK(json.at("host").at(0).at("delta_per_step_ns") == 3);
  CHECK(json.at("b_paired_share") == Approx(0.75));
}

TEST_CASE("docs/op-categories.md shows the built-in map whole", "[unit]") {
  std::ifstream in(std::string(PARITY_DOCS_DIR) + "/op-categories.md");
  REQUIRE(in);
  std::stringstream docs;
  docs << in.rdbuf();
  CHECK_THAT(docs.str(), Catch::Contains(std::string(OpCategoryMap::builtin_text())));
}
