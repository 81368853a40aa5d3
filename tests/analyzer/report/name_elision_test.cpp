// Long op and kernel names in report tables: realistic demangled CUDA kernel
// names that differ only near their end, or only in the middle of their
// template arguments, stay distinct and keep their function name in text
// tables of bounded width; Markdown, HTML (title) and JSON keep the whole name.
#include "parity/analyzer/report/name_elision.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/report/document.hpp"

using namespace parity::analyzer;

namespace {

// PyTorch's elementwise kernels: the same template but for the functor deep
// inside, and a parameter list repeating the template arguments.
std::string elementwise(const std::string& functor) {
  const std::string args =
      "at::native::BinaryFunctor<float, float, float, "
      "at::native::binary_internal::" +
      functor + "<float> >";
  return "void at::native::vectorized_elementwise_kernel<4, " + args +
         ", at::detail::Array<char*, 3> >(int, " + args + ", at::detail::Array<char*, 3>)";
}

// CUTLASS's generated kernels: the configuration's name twice.
std::string cutlass(const std::string& config) {
  return "void cutlass::Kernel2<" + config + ">(" + config + "::Params)";
}

// A CUTLASS 2 GEMM whose tile shape, deep in the middle, is all that differs.
std::string cutlass_gemm(const std::string& tile) {
  const std::string gemm =
      "cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<"
      "cutlass::gemm::GemmShape<" +
      tile +
      ", 8>, float, cutlass::layout::RowMajor>, "
      "cutlass::epilogue::threadblock::Epilogue<cutlass::epilogue::thread::LinearCombination<"
      "float, 1, float, float> >, false>";
  return "void cutlass::Kernel<" + gemm + ">(" + gemm + "::Params)";
}

std::size_t columns(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

void check_distinct_and_narrow(const std::vector<std::string>& names,
                               const std::vector<std::string>& shown) {
  REQUIRE(shown.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i] << "\n  shown as " << shown[i]);
    CHECK(columns(shown[i]) <= kNameWidth);
  }
  CHECK(std::set<std::string>(shown.begin(), shown.end()).size() ==
        std::set<std::string>(names.begin(), names.end()).size());
}

}  // namespace

TEST_CASE("kernel names that differ deep inside their template arguments stay distinct", "[unit]") {
  const std::vector<std::string> names = {elementwise("MulFunctor"), elementwise("DivFunctor"),
                                          elementwise("SubFunctor")};
  const std::vector<std::string> shown = shorten_names(names);
  check_distinct_and_narrow(names, shown);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(shown[i]);
    CHECK_THAT(shown[i], Catch::Contains("vectorized_elementwise_kernel<"));
  }
  CHECK_THAT(shown[0], Catch::Contains("MulFunctor"));
  CHECK_THAT(shown[1], Catch::Contains("DivFunctor"));
  CHECK_THAT(shown[2], Catch::Contains("SubFunctor"));
}

TEST_CASE("kernel names that differ only at the end keep the function name and that end",
          "[unit]") {
  const std::vector<std::string> names = {
      cutlass("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8"),
      cutlass("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align2"),
      cutlass("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align1")};
  const std::vector<std::string> shown = shorten_names(names);
  check_distinct_and_narrow(names, shown);
  for (const std::string& name : shown) CHECK(name.starts_with("cutlass::Kernel2<"));
  CHECK(shown[0].ends_with("_tn_align8>"));
  CHECK(shown[1].ends_with("_tn_align2>"));
}

TEST_CASE("kernel names that differ only in the middle show where they differ", "[unit]") {
  const std::vector<std::string> names = {cutlass_gemm("128, 128"), cutlass_gemm("64, 64"),
                                          cutlass_gemm("256, 128")};
  const std::vector<std::string> shown = shorten_names(names);
  check_distinct_and_narrow(names, shown);
  CHECK_THAT(shown[0], Catch::Contains("128, 128"));
  CHECK_THAT(shown[1], Catch::Contains("64, 64"));
  CHECK_THAT(shown[2], Catch::Contains("256, 128"));
}

TEST_CASE("short names are left alone, equal names shown alike, the width respected", "[unit]") {
  const std::string long_name(200, 'x');
  const std::vector<std::string> names = {"conv2d", elementwise("MulFunctor"), "conv2d", long_name,
                                          long_name + "y"};
  const std::vector<std::string> shown = shorten_names(names, 40);
  CHECK(shown[0] == "conv2d");
  CHECK(shown[2] == "conv2d");
  CHECK(shown[3] != shown[4]);
  for (const std::string& name : {shown[1], shown[3], shown[4]}) CHECK(columns(name) <= 40);
  // Names that differ only in their parameter lists are told apart too.
  const std::vector<std::string> overloads = {"void k<" + long_name + ">(int)",
                                              "void k<" + long_name + ">(float)"};
  const std::vector<std::string> apart = shorten_names(overloads, 40);
  CHECK(apart[0] != apart[1]);
}

TEST_CASE("a report's kernel table: text shortened and distinct, Markdown and HTML whole",
          "[unit]") {
  Document doc;
  Table table{{"kernel", "calls"}, {}, {}};
  table.names = {true};
  const std::vector<std::string> names = {elementwise("MulFunctor"), elementwise("DivFunctor")};
  for (const std::string& name : names) table.rows.push_back({name, "10"});
  doc.table(table);

  std::istringstream text(render_text(doc));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  REQUIRE(lines.size() == 4);  // header, rule, two rows
  CHECK(lines[2] != lines[3]);
  for (const std::string& line : lines) CHECK(columns(line) <= kNameWidth + 12);

  const std::string markdown = render_markdown(doc);
  for (const std::string& name : names) CHECK_THAT(markdown, Catch::Contains(name));

  const std::string html = render_html(doc);
  for (const std::string& name : names) {
    std::string escaped = name;
    for (std::size_t at = 0; (at = escaped.find_first_of("<>", at)) != std::string::npos;)
      escaped.replace(at, 1, escaped[at] == '<' ? "&lt;" : "&gt;"), ++at;
    CHECK_THAT(html, Catch::Contains("title=\"" + escaped + "\""));
  }
}

TEST_CASE("the profile report's text shows distinct kernels, its JSON whole names", "[unit]") {
  ProfileReport report;
  RankProfile rank;
  rank.path = "run.db";
  rank.steps.steps.resize(2);
  rank.steps.warmup_steps = 1;
  for (const char* functor : {"MulFunctor", "DivFunctor"}) {
    KernelStat kernel;
    kernel.name = elementwise(functor);
    kernel.time.count = 100;
    rank.ops.kernels.push_back(kernel);
  }
  rank.ops.kernel_count = 200;
  report.ranks = {rank};
  std::ostringstream text;
  write_profile_report(report, "text", text);
  std::set<std::string> rows;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);)
    if (line.find("vectorized_elementwise_kernel") != std::string::npos) rows.insert(line);
  INFO(text.str());
  CHECK(rows.size() == 2);
  const nlohmann::json json = to_json(report);
  CHECK(json["ranks"][0]["operators"]["kernels"][0]["name"] == elementwise("MulFunctor"));
}
