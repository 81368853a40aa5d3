#include "parity/analyzer/compare/structure_alignment.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "parity/importers/named_tensor.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;
using Kind = StructuralDivergence::Kind;
using Group = std::pair<std::int64_t, std::string>;  // (step, phase)

// "step 0 forward layer1.1 output (add_relu)"
std::string record_text(const DumpRecord& r) {
  return "step " + std::to_string(r.step) + " " + r.phase + " " + r.name + " " + r.role +
         (r.op.empty() ? "" : " (" + r.op + ")");
}

// One dump's records grouped by (step, phase) in execution order, each with
// its counterpart on the other side, if any, and the nearest records before
// and after it in its group that both sides have (found in one pass, so that
// long runs of unpaired records stay linear).
struct Side {
  const std::vector<DumpRecord>& records;
  std::vector<std::optional<std::size_t>> partner;
  std::map<Group, std::vector<std::size_t>> groups;
  std::vector<std::size_t> slot;  // a record's position in its group
  std::vector<std::optional<std::size_t>> paired_before, paired_after;

  Side(const std::vector<DumpRecord>& all, std::vector<std::optional<std::size_t>> partners)
      : records(all),
        partner(std::move(partners)),
        slot(all.size()),
        paired_before(all.size()),
        paired_after(all.size()) {
    for (std::size_t k = 0; k < all.size(); ++k) {
      std::vector<std::size_t>& group = groups[{all[k].step, all[k].phase}];
      slot[k] = group.size();
      group.push_back(k);
    }
    for (const auto& [key, group] : groups) {
      std::optional<std::size_t> last;
      for (const std::size_t k : group) {
        paired_before[k] = last;
        if (partner[k]) last = k;
      }
      last.reset();
      for (auto k = group.rbegin(); k != group.rend(); ++k) {
        paired_after[*k] = last;
        if (partner[*k]) last = *k;
      }
    }
  }
  const std::vector<std::size_t>& group_of(std::size_t k) const {
    return groups.at({records[k].step, records[k].phase});
  }
};

// ", between X and Y", ", after X, at the end of step 0 forward", ...
std::string place_text(const StructuralDivergence& d, const DumpRecord& r) {
  const std::string group = "step " + std::to_string(r.step) + " " + r.phase;
  if (d.after && d.before) return ", between " + *d.after + " and " + *d.before;
  if (d.after) return ", after " + *d.after + ", at the end of " + group;
  if (d.before) return ", before " + *d.before + ", at the start of " + group;
  return "";
}

// A record of `side` that the other side lacks: `kind` says which side that is.
StructuralDivergence missing(const Side& side, const Side& other, std::size_t k, Kind kind) {
  StructuralDivergence d;
  d.kind = kind;
  (kind == Kind::kMissingInB ? d.a : d.b) = k;
  const std::optional<std::size_t> after = side.paired_before[k], before = side.paired_after[k];
  if (after) d.after = side.records[*after].name;
  if (before) d.before = side.records[*before].name;
  if (kind == Kind::kMissingInB) {
    d.order = order_of_record(k);
  } else if (after) {  // just after A's counterpart of the record before it
    d.order = order_of_record(*side.partner[*after]) + 1;
  } else if (before) {
    d.order = order_of_record(*side.partner[*before]) - 1;
  } else {  // nothing paired in this group: before A's first record of it
    d.order =
        order_of_record(other.groups.at({side.records[k].step, side.records[k].phase})[0]) - 1;
  }
  d.message = std::string(kind == Kind::kMissingInB ? "B" : "A") + " has no record for " +
              record_text(side.records[k]) + place_text(d, side.records[k]);
  return d;
}

// The pairs of one forward group, in A's order, that break B's order: those
// off the longest increasing subsequence of their B indices (patience
// sorting, O(n log n)).
std::vector<std::size_t> out_of_order(const Side& a, const std::vector<std::size_t>& group) {
  std::vector<std::size_t> paired;  // A indices
  for (const std::size_t k : group)
    if (a.partner[k]) paired.push_back(k);
  std::vector<std::size_t>
      tails;  // tails[l]: position in `paired` ending the best run of length l + 1
  std::vector<std::ptrdiff_t> previous(paired.size(), -1);
  const auto b_of = [&](std::size_t p) { return *a.partner[paired[p]]; };
  for (std::size_t p = 0; p < paired.size(); ++p) {
    const auto at = std::lower_bound(tails.begin(), tails.end(), b_of(p),
                                     [&](std::size_t q, std::size_t b) { return b_of(q) < b; });
    if (at != tails.begin()) previous[p] = static_cast<std::ptrdiff_t>(*(at - 1));
    if (at == tails.end())
      tails.push_back(p);
    else
      *at = p;
  }
  std::vector<bool> kept(paired.size());
  for (std::ptrdiff_t p = tails.empty() ? -1 : static_cast<std::ptrdiff_t>(tails.back()); p >= 0;
       p = previous[static_cast<std::size_t>(p)])
    kept[static_cast<std::size_t>(p)] = true;
  std::vector<std::size_t> moved;
  for (std::size_t p = 0; p < paired.size(); ++p)
    if (!kept[p]) moved.push_back(paired[p]);
  return moved;
}

// The name of the record run just before record k in its group, as "after X".
std::string after_text(const Side& side, std::size_t k) {
  const std::size_t slot = side.slot[k];
  return slot == 0 ? "first" : "after " + side.records[side.group_of(k)[slot - 1]].name;
}

StructuralDivergence reordered(const Side& a, const Side& b, std::size_t k) {
  StructuralDivergence d;
  d.kind = Kind::kReordered;
  d.a = k;
  d.b = a.partner[k];
  d.order = order_of_record(k);
  d.message = "order: " + record_text(a.records[k]) + " runs " + after_text(a, k) + " in A, " +
              after_text(b, *d.b) + " in B";
  return d;
}

// Op and shape of a pair: each that differs is a divergence.
void compare_layout(const DumpRecord& x, const DumpRecord& y, std::size_t k, std::size_t j,
                    std::vector<StructuralDivergence>& out) {
  const auto add = [&](Kind kind, std::string message) {
    StructuralDivergence& d = out.emplace_back();
    d.kind = kind;
    d.a = k;
    d.b = j;
    d.order = order_of_record(k);
    d.message = std::move(message);
  };
  if (!x.op.empty() && !y.op.empty() && x.op != y.op)
    add(Kind::kOp, "op: step " + std::to_string(x.step) + " " + x.phase + " " + x.name + " " +
                       x.role + " is " + x.op + " in A, " + y.op + " in B");
  if (x.shape != y.shape)
    add(Kind::kShape, "shape: " + record_text(x) + " is " + importers::shape_to_string(x.shape) +
                          " in A, " + importers::shape_to_string(y.shape) + " in B");
}

}  // namespace

std::string_view kind_name(StructuralDivergence::Kind kind) {
  switch (kind) {
    case Kind::kMissingInA:
      return "missing in A";
    case Kind::kMissingInB:
      return "missing in B";
    case Kind::kReordered:
      return "reordered";
    case Kind::kOp:
      return "op";
    case Kind::kShape:
      return "shape";
  }
  return "?";
}

std::vector<StructuralDivergence> align_structure(const std::vector<DumpRecord>& a,
                                                  const std::vector<DumpRecord>& b,
                                                  const DumpPairing& pairing) {
  std::vector<std::optional<std::size_t>> partner_a(a.size()), partner_b(b.size());
  for (const RecordPair& pair : pairing.pairs) {
    partner_a[pair.a] = pair.b;
    partner_b[pair.b] = pair.a;
  }
  const Side side_a(a, std::move(partner_a)), side_b(b, std::move(partner_b));
  const auto both_hold = [&](const DumpRecord& r) {
    return side_a.groups.count({r.step, r.phase}) && side_b.groups.count({r.step, r.phase});
  };
  std::vector<StructuralDivergence> found;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (const auto j = side_a.partner[k])
      compare_layout(a[k], b[*j], k, *j, found);
    else if (both_hold(a[k]))
      found.push_back(missing(side_a, side_b, k, Kind::kMissingInB));
  }
  for (std::size_t j = 0; j < b.size(); ++j)
    if (!side_b.partner[j] && both_hold(b[j]))
      found.push_back(missing(side_b, side_a, j, Kind::kMissingInA));
  for (const auto& [group, members] : side_a.groups)
    if (group.second == "forward")
      for (const std::size_t k : out_of_order(side_a, members))
        found.push_back(reordered(side_a, side_b, k));
  std::stable_sort(found.begin(), found.end(),
                   [](const StructuralDivergence& x, const StructuralDivergence& y) {
                     return x.order < y.order;
                   });
  return found;
}

}  // namespace parity::analyzer
