"""The discrete-event and analytic simulator: pure, no clock, no files."""
