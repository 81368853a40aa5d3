# Analyzer panels (step breakdown, operator table, findings): the models, added
# to parity_gui_model, and the widgets, the library parity_view_panels.
parity_gui_feature(panels
  MODELS
    finding_evidence
    findings_model
    name_filter_proxy
    op_stats_model
    report_rank
    step_bars
  MODEL_HEADERS
    item_roles
  WIDGETS
    findings_panel
    op_table_panel
    report_panel
    step_chart_panel)
