// MindSpore profiler files' readers from the inside: the CSV table, the step
// trace's columns and units, the data-queue records, and how a timeline JSON
// is told from a PyTorch trace by its first bytes.
#include <catch2/catch.hpp>
#include <string>

#include "ascend/ascend_hccl.hpp"
#include "ascend/ascend_kernel_details.hpp"
#include "mindspore/mindspore_csv.hpp"
#include "mindspore/mindspore_queue_trace.hpp"
#include "mindspore/mindspore_step_trace.hpp"
#include "mindspore/mindspore_timeline.hpp"
#include "parity/core/error.hpp"

using namespace parity::importers::trace;

TEST_CASE("CSV cells may be quoted, rows keep their line numbers", "[unit]") {
  const CsvTable table = parse_csv("a,b\n\n1,\"[3, 0, \"\"x\"\"]\"\r\n", "t.csv");
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0].line == 3);
  CHECK(table.rows[0].cells[1] == "[3, 0, \"x\"]");
  CHECK(table.integer(table.rows[0], 0) == 1);
  CHECK_THROWS_WITH(table.integer(table.rows[0], 1), Catch::Contains("t.csv, line 3"));
  CHECK_THROWS_WITH(parse_csv("a,b\n1,\"2\n", "t.csv"), Catch::Contains("t.csv, line 2"));
  CHECK_THROWS_WITH(parse_csv("", "t.csv"), Catch::Contains("empty"));
}

TEST_CASE("the step trace reads 10 ns ticks, skips the average row, finds reduces", "[unit]") {
  const CsvTable table = parse_csv(
      "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail,"
      "stream_2_0_AllReduce-op3,stream_2_0_AllReduce-op3_start_point,"
      "stream_2_0_AllReduce-op3_end_point\n"
      "1,100,200,100,110,180,10,70,20,15,181,196\n"
      "2,200,300,100,205,290,5,85,10,0,0,0\n"
      "-,150,250,100,157,235,7,77,15,7,90,98\n",
      "s.csv");
  const auto steps = parse_step_trace(table).steps;
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].start_ns == 1000);
  CHECK(steps[0].fp_ns == 1100);
  CHECK(steps[0].bp_ns == 1800);
  REQUIRE(steps[0].reduces.size() == 1);
  CHECK(steps[0].reduces[0].op == "AllReduce-op3");
  CHECK(steps[0].reduces[0].stream == 2);
  CHECK(steps[0].reduces[0].start_ns == 1810);
  CHECK(steps[0].reduces[0].end_ns == 1960);
  CHECK(steps[1].reduces.empty());  // zeros: a reduce this step did not run

  const CsvTable disordered =
      parse_csv("step_num,start_point,end_point,fp_point,bp_point\n1,100,200,250,180\n", "d.csv");
  CHECK_THROWS_WITH(parse_step_trace(disordered), Catch::Contains("d.csv, line 2"));
}

TEST_CASE("step trace: MindSpore 0.5's reduce columns and 1.0's one-step zero row", "[unit]") {
  const CsvTable table = parse_csv(
      "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail,"
      "stream_520_parallel_0_start_point,stream_520_parallel_0_end_point,stream_520_parallel_0\n"
      "1,100,200,100,100,180,0,80,20,181,196,15\n"
      "0,0,0,0,0,0,1243211,0,0,0,0,0\n",
      "s.csv");
  const StepTraceTable trace = parse_step_trace(table);
  REQUIRE(trace.steps.size() == 1);
  CHECK(trace.rows_without_times == 1);
  REQUIRE(trace.steps[0].reduces.size() == 1);
  CHECK(trace.steps[0].reduces[0].stream == 520);
  CHECK(trace.steps[0].reduces[0].op.empty());  // the column names no op
}

TEST_CASE("decimal times in ms and us read exactly, with CANN's trailing tab", "[unit]") {
  CHECK(decimal_text_to_ns("154907895.95956", 6) == 154'907'895'959'560);
  CHECK(decimal_text_to_ns("438068.41592", 6) == 438'068'415'920);
  CHECK(decimal_text_to_ns("12", 6) == 12'000'000);
  CHECK(decimal_text_to_ns("5e-05", 6) == 50);
  CHECK_FALSE(decimal_text_to_ns("-1.5", 6));
  CHECK_FALSE(decimal_text_to_ns("1.5ms", 3));
  const CsvTable table = parse_csv(
      "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
      "50,trans_TransData_0,TransData,AI_VECTOR_CORE,1736408883704643.212\t,53.741\n"
      ",hcom_allReduce__586_0_1,hcom_allReduce_,HCCL,\"1736408883732241.564\t\",79089.52\n",
      "kernel_details.csv");
  const std::vector<KernelDetail> kernels = parse_kernel_details(table);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].step == 50);
  CHECK(kernels[0].start_ns == 1'736'408'883'704'643'212);
  CHECK(kernels[0].dur_ns == 53'741);
  CHECK_FALSE(kernels[1].step);
  CHECK(kernels[1].core == "HCCL");
  CHECK_THROWS_WITH(parse_kernel_details(parse_csv("Step Id,Name,Type,Accelerator Core,Start "
                                                   "Time(us),Duration(us)\n1,a,b,c,x,1\n",
                                                   "k.csv")),
                    Catch::Contains("k.csv, line 2"));
}

TEST_CASE("HCCL op names and element types", "[unit]") {
  CHECK(hccl_collective_op("hcom_allReduce__586_0_1") ==
        parity::profiler::CollectiveOp::kAllReduce);
  CHECK(hccl_collective_op("hcom_allGather__12_0_1") == parity::profiler::CollectiveOp::kAllGather);
  CHECK(hccl_collective_op("hcom_reduceScatter__3_1") ==
        parity::profiler::CollectiveOp::kReduceScatter);
  CHECK_FALSE(hccl_collective_op("Notify_Wait"));
  CHECK(hccl_element_bytes("FP32") == 4);
  CHECK(hccl_element_bytes("BF16") == 2);
  CHECK(hccl_element_bytes("INVALID_TYPE") == 0);
}

TEST_CASE("data-queue records: four or five whole numbers of type 0 or 1", "[unit]") {
  const auto records = parse_queue_trace("0 0 20 10 5000\n1 64 20 5 5000\n0 1 21 3\n", "q.txt");
  REQUIRE(records.size() == 3);
  CHECK(records[1].type == QueueRecordType::kConnector);
  CHECK(records[1].extra_info == 64);
  CHECK(records[1].value == 5);
  CHECK(records[1].timestamp_ms == 5000);
  CHECK_FALSE(records[2].timestamp_ms);
  CHECK_THROWS_WITH(parse_queue_trace("1 64 20 5 1\n2 0 1 1 1\n", "q.txt"),
                    Catch::Contains("q.txt, line 2"));
  CHECK_THROWS_WITH(parse_queue_trace("1 64 x 5 1\n", "q.txt"), Catch::Contains("line 1"));
}

TEST_CASE("a MindSpore timeline is told from a PyTorch trace by its first events", "[unit]") {
  CHECK(looks_like_mindspore_timeline(
      R"([{"name": "Conv2D-op12", "ph": "X", "tid": 7, "ts": 1.5, "dur": 2, "pid": 0}])"));
  CHECK(looks_like_mindspore_timeline(R"([{"name": "1", "ph": "X", "tid": 100000}])"));
  CHECK_FALSE(looks_like_mindspore_timeline(
      R"([{"name": "aten::mm", "ph": "X", "tid": 7, "ts": 1.5, "dur": 2, "pid": 0}])"));
  CHECK_FALSE(looks_like_mindspore_timeline(R"({"traceEvents": [{"name": "Conv2D-op12"}]})"));
  CHECK(op_type("Conv2D-op12") == "Conv2D");
  CHECK(op_type("Default/x") == "Default/x");
  CHECK(is_gradient_op("Conv2DBackpropFilter"));
  CHECK_FALSE(is_gradient_op("Conv2D"));
}
