# Tests of the comparison views.
