# Analyzer panels (step breakdown, operator table, findings): the models, added
# to parity_gui_model, and the widgets, the library parity_view_panels.
target_sources(parity_gui_model PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/finding_evidence.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/findings_model.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/item_roles.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/name_filter_proxy.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/op_stats_model.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/report_rank.hpp
  ${CMAKE_CURRENT_LIST_DIR}/include/parity/gui/panels/step_bars.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/finding_evidence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/findings_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/name_filter_proxy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/op_stats_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/report_rank.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/panels/step_bars.cpp)

# The widgets; they include each other as "panels/<name>.hpp".
add_library(parity_view_panels STATIC
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/findings_panel.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/findings_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/op_table_panel.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/op_table_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/report_panel.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/report_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/step_chart_panel.hpp
  ${CMAKE_CURRENT_LIST_DIR}/app/panels/step_chart_panel.cpp)
target_include_directories(parity_view_panels PUBLIC ${CMAKE_CURRENT_LIST_DIR}/app)
target_link_libraries(parity_view_panels PUBLIC parity::gui_model Qt6::Widgets Qt6::Charts)
parity_target_warnings(parity_view_panels)
