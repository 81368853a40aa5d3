// Every table of the trace schema, declared once: (SQL column name, member of
// its trace_rows.hpp struct) in CREATE TABLE order. The writer's INSERTs
// (insert.hpp) and the typed readers (select.hpp) are generated from these;
// schema_sql() stays the text that creates the tables, and a [unit] test
// checks each declaration against PRAGMA table_info of a new database.
#pragma once

#include "parity/profiler/schema/declaration.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler::schema {

// kTable<Row>: the declaration of the table whose rows are Row.
template <class Row>
inline constexpr int kTable = 0;  // no table stores this row type

template <>
inline constexpr auto kTable<MetaRow> = table<MetaRow>("meta",
                                                       column<MetaRow>("key", &MetaRow::key),
                                                       column<MetaRow>("value", &MetaRow::value));

template <>
inline constexpr auto kTable<StringRow> = table<StringRow>(
    "string", column<StringRow>("id", &StringRow::id), column<StringRow>("text", &StringRow::text));

template <>
inline constexpr auto kTable<TrackRow> = table<TrackRow>(
    "track", column<TrackRow>("id", &TrackRow::id), column<TrackRow>("kind", &TrackRow::kind),
    column<TrackRow>("name_id", &TrackRow::name), column<TrackRow>("pid", &TrackRow::pid),
    column<TrackRow>("tid", &TrackRow::tid), column<TrackRow>("device", &TrackRow::device),
    column<TrackRow>("stream", &TrackRow::stream));

template <>
inline constexpr auto kTable<RangeRow> = table<RangeRow>(
    "range", column<RangeRow>("track_id", &RangeRow::track),
    column<RangeRow>("start_ns", &RangeRow::start_ns), column<RangeRow>("id", &RangeRow::id),
    column<RangeRow>("dur_ns", &RangeRow::dur_ns), column<RangeRow>("name_id", &RangeRow::name),
    column<RangeRow>("category", &RangeRow::category), column<RangeRow>("depth", &RangeRow::depth),
    column<RangeRow>("parent_id", &RangeRow::parent_id), column<RangeRow>("arg", &RangeRow::arg));

template <>
inline constexpr auto kTable<InstantRow> =
    table<InstantRow>("instant", row_id("id"), column<InstantRow>("track_id", &InstantRow::track),
                      column<InstantRow>("ts_ns", &InstantRow::ts_ns),
                      column<InstantRow>("name_id", &InstantRow::name),
                      column<InstantRow>("category", &InstantRow::category),
                      column<InstantRow>("arg", &InstantRow::arg));

template <>
inline constexpr auto kTable<StepRow> = table<StepRow>(
    "step", column<StepRow>("step", &StepRow::step), column<StepRow>("track_id", &StepRow::track),
    column<StepRow>("start_ns", &StepRow::start_ns), column<StepRow>("end_ns", &StepRow::end_ns));

template <>
inline constexpr auto kTable<CounterRow> =
    table<CounterRow>("counter", row_id("id"), column<CounterRow>("track_id", &CounterRow::track),
                      column<CounterRow>("ts_ns", &CounterRow::ts_ns),
                      column<CounterRow>("value", &CounterRow::value));

template <>
inline constexpr auto kTable<QueueSampleRow> = table<QueueSampleRow>(
    "queue_sample", row_id("id"), column<QueueSampleRow>("track_id", &QueueSampleRow::track),
    column<QueueSampleRow>("ts_ns", &QueueSampleRow::ts_ns),
    column<QueueSampleRow>("depth", &QueueSampleRow::depth),
    column<QueueSampleRow>("capacity", &QueueSampleRow::capacity),
    column<QueueSampleRow>("role", &QueueSampleRow::role),
    column<QueueSampleRow>("thread_track_id", &QueueSampleRow::thread_track),
    column<QueueSampleRow>("wait_ns", &QueueSampleRow::wait_ns));

template <>
inline constexpr auto kTable<ParameterRow> =
    table<ParameterRow>("parameter", column<ParameterRow>("idx", &ParameterRow::index),
                        column<ParameterRow>("name", &ParameterRow::name),
                        column<ParameterRow>("shape", &ParameterRow::shape),
                        column<ParameterRow>("dtype", &ParameterRow::dtype),
                        column<ParameterRow>("bytes", &ParameterRow::bytes));

template <>
inline constexpr auto kTable<GradReadyRow> = table<GradReadyRow>(
    "grad_ready", row_id("id"), column<GradReadyRow>("step", &GradReadyRow::step),
    column<GradReadyRow>("param_idx", &GradReadyRow::param_index),
    column<GradReadyRow>("ts_ns", &GradReadyRow::ts_ns),
    column<GradReadyRow>("bytes", &GradReadyRow::bytes),
    column<GradReadyRow>("track_id", &GradReadyRow::track));

template <>
inline constexpr auto kTable<CollectiveRow> = table<CollectiveRow>(
    "collective", row_id("id"), column<CollectiveRow>("track_id", &CollectiveRow::track),
    column<CollectiveRow>("start_ns", &CollectiveRow::start_ns),
    column<CollectiveRow>("dur_ns", &CollectiveRow::dur_ns),
    column<CollectiveRow>("op", &CollectiveRow::op),
    column<CollectiveRow>("bytes", &CollectiveRow::bytes),
    column<CollectiveRow>("dtype", &CollectiveRow::dtype),
    column<CollectiveRow>("bucket", &CollectiveRow::bucket),
    column<CollectiveRow>("first_param", &CollectiveRow::first_param),
    column<CollectiveRow>("last_param", &CollectiveRow::last_param),
    column<CollectiveRow>("rank", &CollectiveRow::rank),
    column<CollectiveRow>("step", &CollectiveRow::step));

template <>
inline constexpr auto kTable<StoredGpuActivityRow> = table<StoredGpuActivityRow>(
    "gpu_activity", column<StoredGpuActivityRow>("track_id", &StoredGpuActivityRow::track),
    column<StoredGpuActivityRow>("start_ns", &StoredGpuActivityRow::start_ns),
    column<StoredGpuActivityRow>("id", &StoredGpuActivityRow::id),
    column<StoredGpuActivityRow>("dur_ns", &StoredGpuActivityRow::dur_ns),
    column<StoredGpuActivityRow>("kind", &StoredGpuActivityRow::kind),
    column<StoredGpuActivityRow>("name_id", &StoredGpuActivityRow::name),
    column<StoredGpuActivityRow>("correlation_id", &StoredGpuActivityRow::correlation_id),
    column<StoredGpuActivityRow>("launch_id", &StoredGpuActivityRow::launch_id),
    column<StoredGpuActivityRow>("bytes", &StoredGpuActivityRow::bytes),
    column<StoredGpuActivityRow>("copy_kind", &StoredGpuActivityRow::copy_kind));

template <>
inline constexpr auto kTable<LaunchConfigRow> =
    table<LaunchConfigRow>("launch_config", column<LaunchConfigRow>("id", &LaunchConfigRow::id),
                           element<LaunchConfigRow>("grid_x", &LaunchConfigRow::grid, 0),
                           element<LaunchConfigRow>("grid_y", &LaunchConfigRow::grid, 1),
                           element<LaunchConfigRow>("grid_z", &LaunchConfigRow::grid, 2),
                           element<LaunchConfigRow>("block_x", &LaunchConfigRow::block, 0),
                           element<LaunchConfigRow>("block_y", &LaunchConfigRow::block, 1),
                           element<LaunchConfigRow>("block_z", &LaunchConfigRow::block, 2),
                           column<LaunchConfigRow>("shared_bytes", &LaunchConfigRow::shared_bytes),
                           column<LaunchConfigRow>("registers", &LaunchConfigRow::registers));

template <>
inline constexpr auto kTable<ApiCallRow> = table<ApiCallRow>(
    "api_call", column<ApiCallRow>("track_id", &ApiCallRow::track),
    column<ApiCallRow>("start_ns", &ApiCallRow::start_ns),
    column<ApiCallRow>("id", &ApiCallRow::id), column<ApiCallRow>("dur_ns", &ApiCallRow::dur_ns),
    column<ApiCallRow>("kind", &ApiCallRow::kind), column<ApiCallRow>("name_id", &ApiCallRow::name),
    column<ApiCallRow>("correlation_id", &ApiCallRow::correlation_id));

// Calls fn(kTable<Row>) for every table, in kTraceTables order.
template <class Fn>
void for_each_table(Fn&& fn) {
  fn(kTable<MetaRow>);
  fn(kTable<StringRow>);
  fn(kTable<TrackRow>);
  fn(kTable<RangeRow>);
  fn(kTable<InstantRow>);
  fn(kTable<StepRow>);
  fn(kTable<CounterRow>);
  fn(kTable<QueueSampleRow>);
  fn(kTable<ParameterRow>);
  fn(kTable<GradReadyRow>);
  fn(kTable<CollectiveRow>);
  fn(kTable<StoredGpuActivityRow>);
  fn(kTable<LaunchConfigRow>);
  fn(kTable<ApiCallRow>);
}

}  // namespace parity::profiler::schema
