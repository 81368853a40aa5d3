# Analyzer panels (step breakdown, operator table, findings, the two runs'
# diff): the models, added to parity_gui_model, and the widgets, the library
# parity_view_panels.
parity_gui_feature(panels
  MODELS
    finding_evidence
    findings_model
    name_filter_proxy
    op_diff_model
    op_stats_model
    report_rank
    run_pair
    step_bars
  MODEL_HEADERS
    item_roles
  WIDGETS
    diff_report_panel
    findings_panel
    op_table_panel
    report_panel
    step_bar_chart
    step_chart_panel)
