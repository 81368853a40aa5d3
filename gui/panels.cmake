# Analyzer panels (step breakdown, operator table, findings): sources added to parity_gui_model and parity-view.
