# Tests of the comparison views.

# Checkpoints and dumps written at test time by the scripts the analyzer's
# tests and users run; warnings that fail a test.
add_library(parity_gui_compare_fixtures STATIC ${CMAKE_CURRENT_LIST_DIR}/compare/fixtures.cpp)
target_link_libraries(parity_gui_compare_fixtures PUBLIC parity::core Qt6::Test)
target_compile_definitions(parity_gui_compare_fixtures PRIVATE
  PARITY_PYTHON="/usr/bin/python3"
  PARITY_RESNET_CHECKPOINTS="${PROJECT_SOURCE_DIR}/tests/support/resnet_checkpoints.py"
  PARITY_DUMP_REFERENCE="${PROJECT_SOURCE_DIR}/samples/torch/dump_reference.py")
parity_target_warnings(parity_gui_compare_fixtures)

parity_qt_test(gui_error_histogram_test ${CMAKE_CURRENT_LIST_DIR}/compare/error_histogram_test.cpp)
target_link_libraries(gui_error_histogram_test PRIVATE parity_gui_compare_fixtures)

parity_qt_test(gui_weight_diff_model_test
  ${CMAKE_CURRENT_LIST_DIR}/compare/weight_diff_model_test.cpp)
target_link_libraries(gui_weight_diff_model_test PRIVATE parity_gui_compare_fixtures)

parity_qt_test(gui_tensor_compare_model_test
  ${CMAKE_CURRENT_LIST_DIR}/compare/tensor_compare_model_test.cpp)
target_link_libraries(gui_tensor_compare_model_test PRIVATE parity_gui_compare_fixtures)

# The windows themselves, built from parity-view's sources.
parity_qt_test(gui_compare_windows_test ${CMAKE_CURRENT_LIST_DIR}/compare/compare_windows_test.cpp)
set(compare_views ${PROJECT_SOURCE_DIR}/gui/app/compare)
target_sources(gui_compare_windows_test PRIVATE
  ${compare_views}/histogram_chart.hpp ${compare_views}/histogram_chart.cpp
  ${compare_views}/comparison_window.hpp ${compare_views}/comparison_window.cpp
  ${compare_views}/diff_window.hpp ${compare_views}/diff_window.cpp
  ${compare_views}/compare_window.hpp ${compare_views}/compare_window.cpp)
target_include_directories(gui_compare_windows_test PRIVATE ${PROJECT_SOURCE_DIR}/gui/app)
target_link_libraries(gui_compare_windows_test PRIVATE
  parity_gui_compare_fixtures Qt6::Widgets Qt6::Charts)
