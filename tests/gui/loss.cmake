# The loss-curve window (parity-view --loss).
parity_qt_test(gui_loss_window_test ${CMAKE_CURRENT_LIST_DIR}/loss/loss_window_test.cpp)
target_link_libraries(gui_loss_window_test PRIVATE parity_view_loss)
