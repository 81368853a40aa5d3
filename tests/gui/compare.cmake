# Tests of the comparison views.

# Checkpoints and dumps written at test time by the scripts the analyzer's
# tests and users run.
add_library(parity_gui_compare_fixtures STATIC ${CMAKE_CURRENT_LIST_DIR}/compare/fixtures.cpp)
target_link_libraries(parity_gui_compare_fixtures PUBLIC Qt6::Core)
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

# The windows themselves, from parity-view's library of them.
parity_qt_test(gui_compare_windows_test ${CMAKE_CURRENT_LIST_DIR}/compare/compare_windows_test.cpp)
target_link_libraries(gui_compare_windows_test PRIVATE parity_gui_compare_fixtures
  parity_view_compare)
