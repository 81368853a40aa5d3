# Comparison views (--diff, --compare): sources added to parity_gui_model and parity-view.
target_sources(parity_gui_model PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/error_histogram.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/error_histogram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/comparison_model.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/comparison_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/weight_diff_loader.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/weight_diff_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/weight_diff_model.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/weight_diff_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/tensor_compare_loader.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/tensor_compare_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/compare/tensor_compare_model.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/compare/tensor_compare_model.cpp)

target_sources(parity-view PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/histogram_chart.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/histogram_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/comparison_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/comparison_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/diff_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/diff_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/compare_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/compare_window.cpp)
