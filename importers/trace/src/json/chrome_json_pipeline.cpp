// read_chrome_json in two halves on two threads: the scanner (reading and
// decompressing the file, finding where each value begins and ends) runs on
// a thread of its own and hands the values over in batches; the calling
// thread runs the callbacks (in the importer: parsing each event and turning
// it into rows), which costs about as much again. The callbacks see what the
// scanner alone would show them: every value in document order, on the
// calling thread, then the scanner's error, if any, at the place it arose.
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "bounded_queue.hpp"
#include "json/chrome_json_scan.hpp"

namespace parity::importers::trace {
namespace {

constexpr std::size_t kBatchBytes = std::size_t(1) << 20;
constexpr std::size_t kBatchesInFlight = 4;  // bounds the memory: about 4 MiB

// Consecutive values of the document, their texts packed into one buffer
// that ends in kValuePadding bytes, so every value is followed by as many.
struct Batch {
  struct Value {
    std::size_t begin = 0, size = 0;
    std::uint64_t offset = 0;
    std::optional<std::string> member_key;  // a top-level member, not an event
  };
  std::string text;
  std::vector<Value> values;
  std::optional<std::uint64_t> progress;   // file bytes read when the last value was found
  std::exception_ptr error;                // the scanner failed after these values
  std::optional<JsonStreamResult> result;  // the document ended after these values
};

using BatchQueue = BoundedQueue<Batch>;

// The scanner's side: gathers what scan_chrome_json finds into batches.
class BatchingScanner {
 public:
  explicit BatchingScanner(BatchQueue& queue) : queue_(queue) {}

  void run(const std::filesystem::path& path) {
    JsonStreamCallbacks callbacks;
    callbacks.on_event = [&](const RawJsonValue& value) { add(value, std::nullopt); };
    callbacks.on_member = [&](std::string_view key, const RawJsonValue& value) {
      add(value, std::string(key));
    };
    callbacks.on_progress = [&](std::uint64_t bytes) { batch_.progress = bytes; };
    try {
      batch_.result = scan_chrome_json(path, callbacks);
    } catch (const ReaderStopped&) {
      return;
    } catch (...) {
      batch_.error = std::current_exception();
    }
    ship();
  }

 private:
  struct ReaderStopped {};  // unwinds the scan once nobody takes its batches

  void add(const RawJsonValue& value, std::optional<std::string> member_key) {
    batch_.values.push_back(
        {batch_.text.size(), value.text.size(), value.offset, std::move(member_key)});
    batch_.text.append(value.text);
    if (batch_.text.size() >= kBatchBytes) {
      if (!ship()) throw ReaderStopped{};
      batch_ = Batch{};
    }
  }
  bool ship() {
    batch_.text.append(kValuePadding, '\0');
    return queue_.push(std::move(batch_));
  }

  BatchQueue& queue_;
  Batch batch_;
};

// Stops and joins the scanner however the reading ends, early by an
// exception from a callback included.
class ScannerThread {
 public:
  ScannerThread(BatchQueue& queue, const std::filesystem::path& path)
      : queue_(queue), thread_([&queue, path] { BatchingScanner(queue).run(path); }) {}
  ~ScannerThread() {
    queue_.stop();
    thread_.join();
  }
  ScannerThread(const ScannerThread&) = delete;
  ScannerThread& operator=(const ScannerThread&) = delete;

 private:
  BatchQueue& queue_;
  std::thread thread_;
};

}  // namespace

JsonStreamResult read_chrome_json(const std::filesystem::path& path,
                                  const JsonStreamCallbacks& callbacks) {
  BatchQueue queue(kBatchesInFlight);
  const ScannerThread scanner(queue, path);
  while (true) {
    const Batch batch = *queue.pop();  // the scanner stops only after its last batch
    const std::string_view text = batch.text;
    for (const Batch::Value& value : batch.values) {
      const RawJsonValue raw{text.substr(value.begin, value.size), value.offset};
      if (value.member_key) {
        if (callbacks.on_member) callbacks.on_member(*value.member_key, raw);
      } else if (callbacks.on_event) {
        callbacks.on_event(raw);
      }
    }
    if (batch.progress && callbacks.on_progress) callbacks.on_progress(*batch.progress);
    if (batch.error) std::rethrow_exception(batch.error);
    if (batch.result) return *batch.result;
  }
}

}  // namespace parity::importers::trace
