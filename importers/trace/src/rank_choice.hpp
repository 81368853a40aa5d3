// Which rank of a profiler folder that holds several to read (MindSpore's
// profiler/ folder, a parent of ASCEND_PROFILER_OUTPUT rank folders): the
// one `--rank N` names, or else the lowest, with a note naming the others.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/importers/trace/trace_import.hpp"

namespace parity::importers::trace {

// RankFiles: one rank's files, with its number in `rank`; `ranks` sorted by it
// and not empty. `what` names the files in the refusal of a rank not there.
template <class RankFiles>
const RankFiles& chosen_rank(const std::filesystem::path& dir, const std::vector<RankFiles>& ranks,
                             const ImportOptions& options, ImportSummary& summary,
                             std::string_view what) {
  std::string list;
  for (const RankFiles& rank : ranks) list += (list.empty() ? "" : ", ") + std::to_string(rank.rank);
  if (!options.rank) {
    if (ranks.size() > 1)
      summary.notes.push_back("the other ranks: only rank " + std::to_string(ranks.front().rank) +
                              " (the lowest) of ranks " + list +
                              " is read; `parity import DIR --rank N` reads another");
    return ranks.front();
  }
  for (const RankFiles& rank : ranks)
    if (rank.rank == *options.rank) return rank;
  throw Error("no " + std::string(what) + " of rank " + std::to_string(*options.rank),
              dir.string(), "the folder has ranks " + list);
}

}  // namespace parity::importers::trace
