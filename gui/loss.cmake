# The loss-curve view (--loss): the loader, added to parity_gui_model, and the
# window, the library parity_view_loss.
parity_gui_feature(loss
  MODELS
    loss_loader
  WIDGETS
    loss_chart
    loss_window)
target_link_libraries(parity_gui_model PUBLIC parity::loss_analysis)
