#include <zlib.h>

#include <vector>

#include "json/chrome_json_scan.hpp"
#include "json/json_nesting_scan.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

constexpr std::size_t kChunkBytes = std::size_t(4) << 20;
constexpr int kEnd = -1;

// The document's bytes a chunk at a time, through zlib, which reads plain
// files as they are and gzip files decompressed.
class ChunkedDocument {
 public:
  ChunkedDocument(const std::filesystem::path& path, std::function<void(std::uint64_t)> progress)
      : path_(path.string()), progress_(std::move(progress)) {
    file_ = gzopen(path_.c_str(), "rb");
    if (file_ == nullptr) throw Error("cannot open the trace", path_, "check the path");
    gzbuffer(file_, 1 << 20);
    buffer_.resize(kChunkBytes + kValuePadding);
  }
  ~ChunkedDocument() { gzclose(file_); }
  ChunkedDocument(const ChunkedDocument&) = delete;
  ChunkedDocument& operator=(const ChunkedDocument&) = delete;

  // The next byte, or kEnd.
  int peek() {
    if (pos_ == end_ && !refill()) return kEnd;
    return static_cast<unsigned char>(buffer_[pos_]);
  }
  int next() {
    const int c = peek();
    if (c != kEnd) ++pos_;
    return c;
  }
  std::uint64_t offset() const { return base_ + pos_; }
  const std::string& path() const { return path_; }

  // Scans the value starting at the cursor ('{', '[', '"' or a scalar) and
  // returns its text, in place where it lies within one chunk.
  RawJsonValue capture();

  [[noreturn]] void fail(const std::string& what, std::uint64_t at) const {
    throw Error(what + " at byte " + std::to_string(at), path_,
                "is it a Chrome trace-event JSON (torch.profiler export_chrome_trace), whole "
                "and not truncated?");
  }

 private:
  bool refill();
  // Advances over the rest of a value from the cursor; true once it ended.
  bool scan_nested();
  bool scan_scalar();
  void keep(std::size_t from, std::size_t to, std::uint64_t started);

  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t base_ = 0;  // document offset of buffer_[0]
  std::function<void(std::uint64_t)> progress_;
  // The state of the value being captured, kept across chunks.
  std::string spill_;
  NestingState nesting_;
};

bool ChunkedDocument::refill() {
  base_ += end_;
  pos_ = end_ = 0;
  const int got = gzread(file_, buffer_.data(), static_cast<unsigned>(kChunkBytes));
  if (got < 0) {
    int code = 0;
    const char* message = gzerror(file_, &code);
    throw Error(
        std::string("cannot read the trace: ") + message + " at byte " + std::to_string(base_),
        path_, "a .gz file must be whole; try gzip -t on it");
  }
  end_ = static_cast<std::size_t>(got);
  if (progress_) progress_(static_cast<std::uint64_t>(gzoffset(file_)));
  return end_ > 0;
}

void ChunkedDocument::keep(std::size_t from, std::size_t to, std::uint64_t started) {
  if (spill_.size() + (to - from) > kMaxValueBytes)
    fail("a value of over " + std::to_string(kMaxValueBytes >> 20) + " MiB", started);
  spill_.append(buffer_.data() + from, to - from);
}

bool ChunkedDocument::scan_nested() {
  pos_ = scan_nesting(buffer_.data(), pos_, end_, nesting_);
  return nesting_.depth == 0;  // it began at an opening bracket
}

bool ChunkedDocument::scan_scalar() {
  for (; pos_ < end_; ++pos_) {
    const char c = buffer_[pos_];
    if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
      return true;
  }
  return false;
}

RawJsonValue ChunkedDocument::capture() {
  const int first = peek();
  const std::uint64_t started = offset();
  if (first == kEnd) fail("the JSON ends where a value should start", started);
  spill_.clear();
  nesting_ = NestingState{};
  const bool scalar = first != '{' && first != '[' && first != '"';
  std::size_t from = pos_;
  if (first == '"') ++pos_;  // past the opening quote: the loop below looks for the closing one
  while (true) {
    bool ended = false;
    if (scalar)
      ended = scan_scalar();
    else if (first == '"') {
      for (; pos_ < end_ && !ended; ++pos_) {
        const char c = buffer_[pos_];
        if (nesting_.escaped)
          nesting_.escaped = false;
        else if (c == '\\')
          nesting_.escaped = true;
        else if (c == '"')
          ended = true;
      }
    } else {
      ended = scan_nested();
    }
    if (ended) break;
    keep(from, end_, started);
    if (!refill()) {
      if (scalar && !spill_.empty()) return {spill_, started};
      fail("the JSON ends inside a value that started", started);
    }
    from = 0;
  }
  if (spill_.empty()) {
    if (pos_ - from > kMaxValueBytes)
      fail("a value of over " + std::to_string(kMaxValueBytes >> 20) + " MiB", started);
    return {std::string_view(buffer_.data() + from, pos_ - from), started};
  }
  keep(from, pos_, started);
  spill_.reserve(spill_.size() + kValuePadding);
  return {spill_, started};
}

void skip_space(ChunkedDocument& doc) {
  for (int c = doc.peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = doc.peek())
    doc.next();
}

void expect(ChunkedDocument& doc, char wanted, const char* what) {
  skip_space(doc);
  const std::uint64_t at = doc.offset();
  if (doc.next() != wanted) doc.fail(std::string("expected ") + what, at);
}

// A member name. Names are compared as written: the ones we look for hold no escapes.
std::string read_key(ChunkedDocument& doc) {
  skip_space(doc);
  const std::uint64_t at = doc.offset();
  if (doc.peek() != '"') doc.fail("expected a member name in quotes", at);
  const RawJsonValue value = doc.capture();
  return std::string(value.text.substr(1, value.text.size() - 2));
}

// The elements of an event array, after its '['. Returns false where the
// document ended before the closing ']' (allowed in the Array Format only).
bool read_events(ChunkedDocument& doc, const JsonStreamCallbacks& callbacks, bool may_stay_open) {
  skip_space(doc);
  if (doc.peek() == ']') {
    doc.next();
    return true;
  }
  while (true) {
    skip_space(doc);
    const std::uint64_t at = doc.offset();
    const int c = doc.peek();
    if (c == kEnd || (c == ']' && may_stay_open)) {  // Array Format: trailing ',' then the end
      if (c == ']') doc.next();
      if (c == kEnd && !may_stay_open) doc.fail("the JSON ends inside the event array", at);
      return c == ']';
    }
    if (c != '{') doc.fail("expected an event object ('{') in the event array", at);
    const RawJsonValue event = doc.capture();
    if (callbacks.on_event) callbacks.on_event(event);
    skip_space(doc);
    const std::uint64_t after = doc.offset();
    const int separator = doc.next();
    if (separator == ']') return true;
    if (separator == kEnd) {
      if (!may_stay_open) doc.fail("the JSON ends inside the event array", after);
      return false;
    }
    if (separator != ',') doc.fail("expected ',' or ']' after an event", after);
  }
}

}  // namespace

JsonStreamResult scan_chrome_json(const std::filesystem::path& path,
                                  const JsonStreamCallbacks& callbacks) {
  ChunkedDocument doc(path, callbacks.on_progress);
  JsonStreamResult result;
  skip_space(doc);
  const std::uint64_t start = doc.offset();
  const int first = doc.next();
  if (first == '[') {
    result.unclosed_array = !read_events(doc, callbacks, true);
  } else if (first == '{') {
    result.object_format = true;
    bool saw_events = false;
    skip_space(doc);
    if (doc.peek() == '}') {
      doc.next();
    } else {
      while (true) {
        const std::string key = read_key(doc);
        expect(doc, ':', "':' after a member name");
        skip_space(doc);
        if (key == "traceEvents") {
          expect(doc, '[', "the traceEvents array");
          read_events(doc, callbacks, false);
          saw_events = true;
        } else {
          const RawJsonValue value = doc.capture();
          if (callbacks.on_member) callbacks.on_member(key, value);
        }
        skip_space(doc);
        const std::uint64_t at = doc.offset();
        const int separator = doc.next();
        if (separator == '}') break;
        if (separator == kEnd) doc.fail("the JSON ends inside the top-level object", at);
        if (separator != ',') doc.fail("expected ',' or '}' after a top-level member", at);
      }
    }
    if (!saw_events)
      throw Error("the JSON object has no \"traceEvents\" array", doc.path(),
                  "a Chrome trace (torch.profiler export_chrome_trace) keeps its events there");
  } else {
    doc.fail(first == kEnd ? "the file is empty" : "expected '{' or '[' (a Chrome trace JSON)",
             start);
  }
  skip_space(doc);
  if (!result.unclosed_array && doc.peek() != kEnd)
    doc.fail("unexpected bytes after the end of the JSON document", doc.offset());
  result.document_bytes = doc.offset();
  return result;
}

}  // namespace parity::importers::trace
