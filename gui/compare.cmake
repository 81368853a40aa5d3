# Comparison views (--diff, --compare): sources added to parity_gui_model and parity-view.
