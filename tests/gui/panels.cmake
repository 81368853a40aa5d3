# Tests of the analyzer panels.
