"""A figure past a limit is shown with the digits that make it read as past it."""

import pytest

from advisor.units import shown_past


@pytest.mark.parametrize(("value", "limit", "percent", "digits", "text"), [
    (0.953, 0.95, True, 0, "95.3%"),  # was "95%" beside "(limit 95%)"
    (0.9501, 0.95, True, 0, "95.01%"),
    (0.97, 0.95, True, 0, "97%"),
    (0.80, 0.95, True, 0, "80%"),  # within: no extra digits
    (10.04, 10.0, False, 1, "10.04"),
    (10.4, 10.0, False, 1, "10.4"),
    (1234.5, 10.0, False, 1, "1,234.5"),
])
def test_a_figure_past_its_limit_reads_past_it(value: float, limit: float, percent: bool,
                                               digits: int, text: str) -> None:
    assert shown_past(value, limit, percent=percent, digits=digits) == text


def test_a_figure_a_hair_past_shows_at_most_three_more_digits() -> None:
    assert shown_past(0.9500001, 0.95) == "95.000%"
