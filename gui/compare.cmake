# Comparison views (--diff, --compare): the models, added to parity_gui_model,
# and the windows, the library parity_view_compare.
parity_gui_feature(compare
  MODELS
    error_histogram
    comparison_model
    weight_diff_loader
    weight_diff_model
    tensor_compare_loader
    tensor_compare_model
  WIDGETS
    histogram_chart
    comparison_window
    diff_window
    compare_window)
