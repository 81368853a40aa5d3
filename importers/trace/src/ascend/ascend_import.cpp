#include "ascend/ascend_import.hpp"

#include <algorithm>
#include <map>

#include "ascend/ascend_kernel_details.hpp"
#include "ascend/ascend_output_dir.hpp"
#include "ascend/ascend_step_trace_time.hpp"
#include "ascend/ascend_trace_view.hpp"
#include "mindspore/mindspore_op_statistic.hpp"
#include "parity/core/error.hpp"
#include "rank_choice.hpp"

namespace parity::importers::trace {
namespace {

namespace fs = std::filesystem;

// Steps where the trace marks none (MindSpore's trace_view has no
// ProfilerStep ranges): each from its first kernel's start to its last
// kernel's end, so without the host's time before the first kernel.
void add_kernel_steps(const std::vector<KernelDetail>& kernels, TraceAssembly& assembly,
                      ImportSummary& summary) {
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> spans;
  for (const KernelDetail& kernel : kernels) {
    if (!kernel.step) continue;
    const auto [it, added] =
        spans.try_emplace(*kernel.step, kernel.start_ns, kernel.start_ns + kernel.dur_ns);
    it->second.first = std::min(it->second.first, kernel.start_ns);
    it->second.second = std::max(it->second.second, kernel.start_ns + kernel.dur_ns);
  }
  const TrackId steps = assembly.track("Steps", profiler::TrackKind::kHostThread);
  for (const auto& [step, span] : spans) {
    assembly.add_range(steps, span.first, span.second - span.first,
                       assembly.name("step " + std::to_string(step)), Category::kStep, step);
    ++summary.imported["steps (kernel_details.csv Step Id: first kernel's start to last's end)"];
  }
  if (spans.empty())
    summary.notes.push_back(
        "no steps: neither ProfilerStep#<n> ranges nor kernel_details.csv's "
        "Step Id mark them");
}

void read_kernel_details(const AscendRankFiles& files, const TraceViewContent& content,
                         TraceAssembly& assembly, ImportSummary& summary) {
  const std::vector<KernelDetail> kernels = parse_kernel_details(read_csv(files.kernel_details));
  summary.events += kernels.size();
  std::map<std::string, std::int64_t> count_by_type;
  std::int64_t compute = 0;
  for (const KernelDetail& kernel : kernels) {
    ++count_by_type[kernel.type];
    if (kernel.core != "HCCL") ++compute;
  }
  summary.not_imported["kernel_details.csv rows (the trace view's kernels, by type)"] +=
      kernels.size();
  if (compute != content.kernels)
    summary.notes.push_back("kernel_details.csv lists " + std::to_string(compute) +
                            " kernels besides HCCL's, the trace view " +
                            std::to_string(content.kernels));
  if (content.steps == 0) add_kernel_steps(kernels, assembly, summary);
  if (!files.op_statistic.empty())
    cross_check_op_statistic(read_csv(files.op_statistic), count_by_type, "kernel_details.csv",
                             "the two files describe one run; a difference is CANN's", assembly,
                             summary);
}

}  // namespace

bool is_ascend_output_dir(const fs::path& dir) { return !find_ascend_ranks(dir).empty(); }

std::vector<fs::path> ascend_output_files(const fs::path& dir) {
  std::vector<fs::path> all;
  for (const AscendRankFiles& rank : find_ascend_ranks(dir))
    for (const fs::path& file : files_of(rank)) all.push_back(file);
  return all;
}

void read_ascend_output(const fs::path& dir, const ImportOptions& options, TraceAssembly& assembly,
                        ImportSummary& summary) {
  const std::vector<AscendRankFiles> ranks = find_ascend_ranks(dir);
  if (ranks.empty())
    throw Error("no ASCEND_PROFILER_OUTPUT folder here", dir.string(),
                "give the <name>_ascend_ms or <name>_ascend_pt folder the profiler wrote");
  const AscendRankFiles& files = chosen_rank(dir, ranks, options, summary, "ASCEND_PROFILER_OUTPUT");
  if (files.trace_view.empty())
    throw Error("no trace_view.json in " + files.output.string(), dir.string(),
                "Parity reads the text export (export_type \"text\"); the .db export alone is not "
                "read");
  const std::string rank = std::to_string(files.rank);
  summary.source = "CANN profiler output (ASCEND_PROFILER_OUTPUT, rank " + rank + ", " +
                   (files.framework.empty() ? std::string("framework not stated in the files")
                                            : "written by " + files.framework + ", as " +
                                                  files.framework_evidence + " tells") +
                   ")";
  assembly.set_meta("rank", rank);
  if (!files.framework.empty()) assembly.set_meta("import.framework", files.framework);
  if (!files.rank_from_file)
    summary.notes.push_back(
        "no profiler_info_<rank>.json: the rank is the folder's place among "
        "the rank folders");

  const TraceViewContent content =
      read_trace_view(files.trace_view, options, files.rank, assembly, summary);
  if (!files.kernel_details.empty())
    read_kernel_details(files, content, assembly, summary);
  else if (content.steps == 0)
    summary.notes.push_back(
        "no steps: the trace view marks none and there is no "
        "kernel_details.csv to take them from");
  if (!files.step_trace_time.empty())
    keep_step_trace_time(read_csv(files.step_trace_time), assembly, summary);
  summary.notes.push_back("no forward, backward or optimizer phases: CANN's output marks none");
}

}  // namespace parity::importers::trace
