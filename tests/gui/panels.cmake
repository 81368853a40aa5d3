# Tests of the analyzer panels: the models headless, the widgets offscreen,
# all on reports the analyzer builds from traces written at test time.
add_library(gui_panels_fixture STATIC
  ${CMAKE_CURRENT_LIST_DIR}/panels/report_fixture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/panels/run_pair_fixture.cpp
  ${PROJECT_SOURCE_DIR}/tests/analyzer/report/small_trace.cpp)
target_include_directories(gui_panels_fixture PUBLIC
  ${CMAKE_CURRENT_LIST_DIR}/panels ${PROJECT_SOURCE_DIR}/tests/analyzer/report)
target_link_libraries(gui_panels_fixture PUBLIC parity::trace_analysis parity::trace_synth)
parity_target_warnings(gui_panels_fixture)

foreach(model step_bars op_stats_model findings_model)
  parity_qt_test(gui_${model}_test ${CMAKE_CURRENT_LIST_DIR}/panels/${model}_test.cpp)
  target_link_libraries(gui_${model}_test PRIVATE gui_panels_fixture)
endforeach()
# Two runs: both analyses, their diff, and a PyTorch profiler trace as run B.
parity_qt_test(gui_run_pair_test ${CMAKE_CURRENT_LIST_DIR}/panels/run_pair_test.cpp)
target_link_libraries(gui_run_pair_test PRIVATE gui_panels_fixture parity::trace_import)

# The widgets, from parity-view's library of them.
foreach(panel step_chart op_table findings)
  parity_qt_test(gui_${panel}_panel_test ${CMAKE_CURRENT_LIST_DIR}/panels/${panel}_panel_test.cpp)
  target_link_libraries(gui_${panel}_panel_test PRIVATE gui_panels_fixture parity_view_panels)
endforeach()

# The window with two runs open.
parity_qt_test(gui_two_runs_window_test ${CMAKE_CURRENT_LIST_DIR}/panels/two_runs_window_test.cpp)
target_link_libraries(gui_two_runs_window_test PRIVATE gui_panels_fixture parity_view_widgets
  parity::trace_import)
