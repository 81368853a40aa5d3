#include "parity/analyzer/compare/dump_pairing.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "parity/importers/naming/name_map.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;
using importers::MappedName;

// Pairs as they are made, with what each side has left.
struct Pairer {
  const std::vector<DumpRecord>& a;
  const std::vector<DumpRecord>& b;
  std::vector<std::optional<std::string>> names_a;  // A's names mapped; none: no counterpart
  std::vector<bool> paired_a, paired_b;
  std::vector<RecordPair> pairs;

  void add(std::size_t i, std::size_t j, const char* how) {
    paired_a[i] = paired_b[j] = true;
    pairs.push_back({i, j, how});
  }

  void by_key() {
    using Key = std::tuple<std::int64_t, std::string, std::string, std::string>;
    std::map<Key, std::size_t> index_b;
    for (std::size_t j = 0; j < b.size(); ++j)
      index_b.emplace(Key{b[j].step, b[j].phase, b[j].role, b[j].name}, j);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!names_a[i]) continue;
      const auto hit = index_b.find(Key{a[i].step, a[i].phase, a[i].role, *names_a[i]});
      // Two A names the map turned into one B name: the first takes it.
      if (hit != index_b.end() && !paired_b[hit->second]) add(i, hit->second, "key");
    }
  }

  // The k-th record of a name in A with the k-th of that name in B.
  void by_name() {
    std::unordered_map<std::string, std::deque<std::size_t>> index_b;
    for (std::size_t j = 0; j < b.size(); ++j) index_b[b[j].name].push_back(j);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!names_a[i]) continue;
      const auto hit = index_b.find(*names_a[i]);
      if (hit == index_b.end() || hit->second.empty()) continue;
      add(i, hit->second.front(), "name");
      hit->second.pop_front();
    }
  }

  // The unpaired records of both sides aligned by the longest common
  // subsequence of their shapes: order is kept and a record missing on one
  // side shifts nothing after it. The table keeps one bit per cell (a
  // 10000 x 10000 alignment takes 12.5 MB).
  void by_order_and_shape() {
    std::vector<std::size_t> left, right;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!paired_a[i] && names_a[i]) left.push_back(i);
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!paired_b[j]) right.push_back(j);
    if (left.empty() || right.empty()) return;
    std::map<std::vector<std::int64_t>, int> shape_ids;
    const auto ids = [&](const std::vector<DumpRecord>& records,
                         const std::vector<std::size_t>& rows) {
      std::vector<int> out;
      for (const std::size_t k : rows)
        out.push_back(
            shape_ids.emplace(records[k].shape, static_cast<int>(shape_ids.size())).first->second);
      return out;
    };
    const std::vector<int> x = ids(a, left), y = ids(b, right);
    const std::size_t n = x.size(), m = y.size();
    // up[(i - 1) * m + (j - 1)]: at cell (i, j) with unequal shapes, dropping
    // A's record i keeps at least as long a subsequence as dropping B's j.
    std::vector<bool> up(n * m);
    std::vector<std::uint32_t> previous(m + 1, 0), current(m + 1, 0);
    for (std::size_t i = 1; i <= n; ++i) {
      for (std::size_t j = 1; j <= m; ++j) {
        if (x[i - 1] == y[j - 1]) {
          current[j] = previous[j - 1] + 1;
        } else {
          up[(i - 1) * m + (j - 1)] = previous[j] >= current[j - 1];
          current[j] = std::max(previous[j], current[j - 1]);
        }
      }
      std::swap(previous, current);
    }
    for (std::size_t i = n, j = m; i > 0 && j > 0;) {
      if (x[i - 1] == y[j - 1]) {
        add(left[i - 1], right[j - 1], "order and shape");
        --i;
        --j;
      } else if (up[(i - 1) * m + (j - 1)]) {
        --i;
      } else {
        --j;
      }
    }
  }

  DumpPairing finish(std::string method) {
    DumpPairing pairing;
    pairing.method = std::move(method);
    pairing.pairs = std::move(pairs);
    std::sort(pairing.pairs.begin(), pairing.pairs.end(),
              [](const RecordPair& p, const RecordPair& q) { return p.a < q.a; });
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!paired_a[i]) pairing.only_a.push_back(i);
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!paired_b[j]) pairing.only_b.push_back(j);
    return pairing;
  }
};

}  // namespace

DumpPairing pair_dumps(const importers::TensorDump& a, const importers::TensorDump& b,
                       const std::string& map) {
  const std::unique_ptr<importers::NameMap> name_map = importers::make_name_map(map);
  std::vector<std::string> names;
  for (const DumpRecord& record : a.records()) names.push_back(record.name);
  Pairer pairer{a.records(),
                b.records(),
                {},
                std::vector<bool>(a.records().size()),
                std::vector<bool>(b.records().size()),
                {}};
  for (const MappedName& mapped : name_map->apply(names))
    pairer.names_a.push_back(mapped.kind == MappedName::Kind::kMapped ? std::optional(mapped.name)
                                                                      : std::nullopt);
  const std::string with_map = ", map " + name_map->description();
  if (a.has_manifest() && b.has_manifest()) {
    pairer.by_key();
    return pairer.finish("by (step, phase, role, name)" + with_map);
  }
  pairer.by_name();
  pairer.by_order_and_shape();
  return pairer.finish("by name, then by order and shape" + with_map);
}

}  // namespace parity::analyzer
