# Comparison views (--diff, --compare): the models, added to parity_gui_model,
# and the windows, the library parity_view_compare.
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

add_library(parity_view_compare STATIC
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/histogram_chart.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/histogram_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/comparison_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/comparison_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/diff_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/diff_window.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/compare_window.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/compare/compare_window.cpp)
target_include_directories(parity_view_compare PUBLIC ${CMAKE_CURRENT_LIST_DIR}/app)
target_link_libraries(parity_view_compare PUBLIC parity::gui_model Qt6::Widgets Qt6::Charts)
parity_target_warnings(parity_view_compare)
