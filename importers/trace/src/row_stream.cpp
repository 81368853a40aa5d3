#include "row_stream.hpp"

#include "parity/profiler/trace_writer.hpp"

namespace parity::importers::trace {
namespace {

constexpr std::size_t kRowsPerBatch = 8192;
constexpr std::size_t kBatchesInFlight = 4;  // bounds the memory: a few MB of rows
constexpr std::size_t kRowsPerTransaction = std::size_t(1) << 16;

}  // namespace

RowStream::RowStream(const std::filesystem::path& out, std::int64_t origin_ns)
    : writer_(std::make_unique<profiler::TraceWriter>(out, profiler::TraceWriter::Journal::kScratch)),
      origin_ns_(origin_ns),
      queue_(kBatchesInFlight) {
  writer_->begin();
  thread_ = std::thread([this] { write_batches(); });
}

RowStream::~RowStream() { stop(); }

void RowStream::stop() {
  if (!thread_.joinable()) return;
  queue_.stop();
  thread_.join();
}

void RowStream::write_batches() {
  try {
    std::size_t rows = 0;
    while (const std::optional<Batch> batch = queue_.pop()) {
      for (const profiler::GpuActivityRow& row : batch->activities) writer_->add(row);
      for (const profiler::ApiCallRow& row : batch->calls) writer_->add(row);
      // Commits as the rows cross each multiple, so no transaction grows without end.
      if ((rows + batch->size()) / kRowsPerTransaction != rows / kRowsPerTransaction) {
        writer_->commit();
        writer_->begin();
      }
      rows += batch->size();
    }
  } catch (...) {
    error_ = std::current_exception();
    queue_.stop();  // the reader's next push fails and it rethrows error_
  }
}

void RowStream::ship() {
  if (!queue_.push(std::move(pending_))) {
    thread_.join();
    std::rethrow_exception(error_);
  }
  pending_ = Batch{};
  pending_.activities.reserve(kRowsPerBatch);
}

void RowStream::add(profiler::GpuActivityRow row) {
  row.start_ns -= origin_ns_;
  pending_.activities.push_back(row);
  if (pending_.size() >= kRowsPerBatch) ship();
}

void RowStream::add(profiler::ApiCallRow row) {
  row.start_ns -= origin_ns_;
  pending_.calls.push_back(row);
  if (pending_.size() >= kRowsPerBatch) ship();
}

std::unique_ptr<profiler::TraceWriter> RowStream::finish() {
  if (pending_.size() > 0) ship();
  stop();
  if (error_) std::rethrow_exception(error_);
  return std::move(writer_);
}

}  // namespace parity::importers::trace
