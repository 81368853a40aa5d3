// A safe reader of Python pickles (protocols 0 to 5), for PyTorch checkpoints.
// It never executes anything: it runs the pickle machine's opcodes to build a
// tree of plain values (None, bool, int, float, str, bytes, tuple, list, dict,
// set) plus three inert nodes - a reference to a global, a "call" of a global
// (REDUCE, NEWOBJ, INST, OBJ) with its arguments, and a persistent id - that
// the caller interprets. Every global must be on an allow-list of the names
// PyTorch checkpoints use; any other (os.system, builtins.eval, ...) is a
// parity::Error naming it and the offset of the opcode. Stack, memo, value
// count, line and string lengths are bounded, and every length is checked
// against the input that remains before anything is allocated. The allow-list
// and the limits are documented in docs/formats/pytorch.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parity::importers {

enum class PickleKind : std::uint8_t {
  kNone,
  kBool,
  kInt,
  kLargeInt,  // an integer beyond int64 (the legacy .pth magic number is one)
  kFloat,
  kStr,
  kBytes,
  kTuple,
  kList,
  kDict,  // dict and collections.OrderedDict, in insertion order
  kSet,   // set and frozenset, in file order
  kGlobal,
  kCall,
  kPersistentId,
};

// "None", "int", "str", "tuple", "global", "call", ...
std::string_view pickle_kind_name(PickleKind kind);

using PickleId = std::uint32_t;  // index into Pickle::values

struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  // Offset of the opcode that made the value (in the file, or in the zip member).
  std::uint64_t offset = 0;
  bool boolean = false;      // kBool
  std::int64_t integer = 0;  // kInt
  double real = 0;           // kFloat
  // kStr: UTF-8 text; kBytes: the bytes; kLargeInt: the integer as
  // little-endian two's complement bytes; kGlobal, kCall: "module.name".
  std::string text;
  std::vector<PickleId> items;                         // kTuple, kList, kSet
  std::vector<std::pair<PickleId, PickleId>> entries;  // kDict: key, value
  // kCall: the argument tuple; kPersistentId: the id.
  PickleId argument = 0;
  // kCall, kDict: the state a BUILD opcode gave the object (Parameter state,
  // an OrderedDict's attributes), if any.
  std::optional<PickleId> state;
};

// A parsed pickle: a value tree whose nodes may be shared (the memo), held
// in one array so that shared and even cyclic references are safe to hold.
// Whoever walks it must bound its depth (cycles) and its visits (sharing).
struct Pickle {
  std::vector<PickleValue> values;
  PickleId root = 0;
  std::uint64_t end_offset = 0;  // offset just past the STOP opcode

  const PickleValue& operator[](PickleId id) const { return values[id]; }
};

// Bytes for the pickle machine: a buffer, or a file read on demand.
class PickleInput {
 public:
  virtual ~PickleInput() = default;
  // Offset of the next byte (in the file, or in the member), for messages.
  virtual std::uint64_t position() const = 0;
  virtual std::uint64_t remaining() const = 0;
  // The next `count` bytes; count <= remaining(). Valid until the next call.
  virtual std::span<const std::byte> take(std::size_t count) = 0;
};

// A pickle held in memory; `base_offset` is the offset of bytes[0].
class PickleBytesInput final : public PickleInput {
 public:
  explicit PickleBytesInput(std::span<const std::byte> bytes, std::uint64_t base_offset = 0)
      : bytes_(bytes), base_offset_(base_offset) {}
  std::uint64_t position() const override { return base_offset_ + next_; }
  std::uint64_t remaining() const override { return bytes_.size() - next_; }
  std::span<const std::byte> take(std::size_t count) override;

 private:
  std::span<const std::byte> bytes_;
  std::uint64_t base_offset_ = 0;
  std::size_t next_ = 0;
};

struct PickleLimits {
  // Far beyond any checkpoint (a ResNet-50 state_dict makes about 5,000
  // values, an LLM's about 50 per tensor), small enough that a hostile file
  // cannot make us hold more than a few hundred MiB.
  std::size_t max_values = std::size_t{1} << 23;
  std::size_t max_stack = std::size_t{1} << 20;
  std::size_t max_memo = std::size_t{1} << 20;
  // Text arguments of protocol 0 opcodes (GLOBAL names, INT, STRING, ...).
  std::size_t max_line = std::size_t{1} << 20;
  // One str or bytes value: checkpoints hold names, not blobs, and this bounds
  // what a legacy file's pickle, read from disk, can make us allocate.
  std::size_t max_string = std::size_t{1} << 28;
};

// Walkers of a Pickle refuse trees nested deeper than this: torch checkpoints
// nest a few levels, and a cycle (a list holding itself) is caught here.
inline constexpr int kMaxPickleNesting = 200;

// Reads one pickle, from the input's position to its STOP opcode (bytes after
// it are left unread). `where` names the input in errors ("model.pth, member
// 'model/data.pkl'"), to which ", offset N" is added. Throws parity::Error for
// a global off the allow-list, an unknown or unsupported opcode, truncated
// input, malformed arguments, stack underflow, a missing memo entry, or a
// limit reached.
Pickle read_pickle(PickleInput& input, std::string_view where, const PickleLimits& limits = {});

// The globals a pickle may name, and why each is needed.
struct AllowedGlobal {
  std::string module;
  std::string name;
  std::string_view why;
};
const std::vector<AllowedGlobal>& allowed_pickle_globals();
bool is_allowed_pickle_global(std::string_view module, std::string_view name);

}  // namespace parity::importers
