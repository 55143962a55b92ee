"""The figure rules every surface shares, table by table (the display-format table).

| figure                         | reads as                                            |
| ------------------------------ | --------------------------------------------------- |
| a pass/fail fraction           | ``14/16 · 88%`` (``14/16 (88%)`` in Markdown); ``—`` |
| a 0..1 score                   | ``93%``                                             |
| a threshold                    | ``pass ≥ 70%``                                      |
| money                          | ``$0.0243``, ``~$0.0243``, ``$0.000512``, ``$0.00``  |

Percentages round half up to whole numbers; two different figures read against each other
keep enough decimals to read differently.
"""

from __future__ import annotations

import math

import pytest

from assay_agents.report.format import (
    ESTIMATED_LEGEND,
    MISSING,
    cost_working,
    duration_ms,
    fraction,
    fraction_md,
    limit,
    money,
    number,
    per_million,
    percent,
    percents_apart,
    points,
    points_against,
    points_interval,
    points_limit,
    score,
    score_against,
    scores_apart,
    tokens,
)

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.875, "88%"),
        (0.125, "13%"),  # half up, although 12.5 rounds to 12 under banker's rounding
        (0.135, "14%"),
        (0.005, "1%"),
        (0.0049, "0.5%"),  # strictly above nothing: never 0%
        (0.145, "15%"),  # 0.145 * 100 is 14.499... in binary; the printed decimal rounds up
        (0.994, "99%"),
        (0.995, "99.5%"),  # strictly below all: never 100%
        (0.93, "93%"),
        (0.0, "0%"),
        (1.0, "100%"),
        (2 / 3, "67%"),
        (-0.125, "−13%"),  # away from zero, like the positive side
        (None, MISSING),
        (NAN, MISSING),
        (INF, MISSING),
        (-INF, MISSING),
    ],
)
def test_percent_rounds_half_up_to_whole_numbers(value: float | None, expected: str) -> None:
    assert percent(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.9999, "99.99%"),
        (0.995, "99.5%"),
        (0.99951, "99.95%"),
        (0.00004, "0.004%"),
        (0.000051, "0.01%"),
        (0.999999, "99.9999%"),
        # Past four decimals a share says which side of 0% or 100% it is on.
        (0.9999999, "> 99.9999%"),
        (1e-9, "< 0.0001%"),
        (1e-300, "< 0.0001%"),
    ],
)
def test_a_share_strictly_between_nothing_and_all_never_reads_as_either(
    value: float, expected: str
) -> None:
    assert percent(value) == expected
    assert score(value) == expected
    assert score_against(value) == expected
    assert percents_apart(value, 0.5)[0] == expected


def test_a_fraction_short_of_all_never_reads_as_all() -> None:
    assert fraction(1999, 2000) == "1999/2000 · 99.95%"
    assert fraction_md(1999, 2000) == "1999/2000 (99.95%)"
    assert fraction(1, 2000) == "1/2000 · 0.1%"
    assert fraction(1, 10**9) == "1/1000000000 · < 0.0001%"


def test_a_fraction_read_against_a_gate_stays_on_its_side() -> None:
    assert fraction(139, 200, 0.7) == "139/200 · 69.5%"
    assert fraction_md(139, 200, 0.7) == "139/200 (69.5%)"
    assert fraction(140, 200, 0.7) == "140/200 · 70%"
    assert fraction(141, 200, 0.7) == "141/200 · 71%"  # whole when it is already on its side


def test_percent_takes_more_decimals_when_asked() -> None:
    assert percent(0.625, 1) == "62.5%"
    assert percent(0.5, 1) == "50.0%"
    assert percent(0.12345, 2) == "12.35%"  # half up


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.93, "93%"),
        (0.930, "93%"),
        (0.125, "13%"),
        (0.005, "1%"),
        (2 / 3, "67%"),
        (1.0, "100%"),
        (0.0, "0%"),
        (None, MISSING),
        (NAN, MISSING),
        (INF, MISSING),
    ],
)
def test_a_score_is_a_whole_percentage(value: float | None, expected: str) -> None:
    assert score(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.7, "70%"),
        (0.5, "50%"),
        (1.0, "100%"),
        (0.0, "0%"),
        (0.725, "72.5%"),  # a setting is never rounded into another one
        (0.6666, "66.66%"),
        (0.123456, "12.3456%"),
        # At most four decimals: past them a setting is rounded, and one that would read as
        # 0% or 100% says which side of it it is on.
        (0.1234567, "12.3457%"),
        (2e-300, "< 0.0001%"),
        (1 - 1e-12, "> 99.9999%"),
        (None, MISSING),
        (NAN, MISSING),
    ],
)
def test_a_threshold_reads_as_it_was_set(value: float | None, expected: str) -> None:
    assert limit(value) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((0.875, 0.7), ("88%", "70%")),
        ((0.625, 0.5), ("63%", "50%")),
        ((0.5, 0.5), ("50%", "50%")),
        ((1 / 3, 0.9), ("33%", "90%")),
        # Whole numbers would read 70% < 70%: a judge mean 0.695 against a minimum 0.70.
        ((0.695, 0.7), ("69.5%", "70%")),
        ((0.6249, 0.625), ("62%", "63%")),  # already apart as whole numbers
        ((0.625, 0.6251), ("62.5%", "62.51%")),
        ((0.6249, 0.6245), ("62.49%", "62.45%")),
        ((0.6251, 0.625), ("62.51%", "62.5%")),
        ((0.5996, 0.6), ("59.96%", "60%")),
    ],
)
def test_figures_read_against_each_other_never_read_the_same_when_they_differ(
    values: tuple[float, float], expected: tuple[str, str]
) -> None:
    assert percents_apart(*values) == expected
    assert scores_apart(*values) == expected


def test_figures_read_against_each_other_keep_their_order() -> None:
    for below, above in [(0.695, 0.7), (0.6949, 0.695), (0.00499, 0.005), (0.9949, 0.995)]:
        low, high = percents_apart(below, above)
        assert low != high
        assert float(low.rstrip("%")) < float(high.rstrip("%"))


def test_a_missing_figure_read_against_another_is_a_dash() -> None:
    assert scores_apart(None, 0.7) == (MISSING, "70%")
    assert scores_apart(NAN, 0.7) == (MISSING, "70%")
    assert scores_apart(0.9, None) == ("90%", MISSING)


@pytest.mark.parametrize(
    ("value", "minimum", "expected"),
    [
        (0.5, 0.6, "50%"),
        (0.5996, 0.6, "59.96%"),  # never 60%: a failing mean must not read as its minimum
        (0.695, 0.7, "69.5%"),
        (0.695, 0.6951, "69.5%"),  # whole, 70% would read above the minimum it missed
        (0.7251, 0.725, "73%"),
        (0.7249, 0.725, "72%"),
        (None, 0.7, MISSING),
        (0.7, 0.7, "70%"),
        (0.93, 0.7, "93%"),
        (0.9999, 1.0, "99.99%"),
        (0.9999, 0.5, "99.99%"),  # short of all, whatever the minimum
        # Four decimals at most: past them the score says which side of the minimum it is on.
        (1e-300, 2e-300, "< 0.0001%"),
        (0.6999999, 0.7, "< 70%"),
        (0.7000001, 0.7, "> 70%"),
    ],
)
def test_a_score_read_against_its_minimum(
    value: float | None, minimum: float, expected: str
) -> None:
    assert score_against(value, minimum) == expected


@pytest.mark.parametrize(
    ("passed", "total", "text", "markdown"),
    [
        (14, 16, "14/16 · 88%", "14/16 (88%)"),
        (1, 8, "1/8 · 13%", "1/8 (13%)"),  # 12.5% half up
        (1, 200, "1/200 · 1%", "1/200 (1%)"),  # 0.5% half up
        (0, 3, "0/3 · 0%", "0/3 (0%)"),
        (3, 3, "3/3 · 100%", "3/3 (100%)"),
        (0, 0, MISSING, MISSING),  # nothing scored
    ],
)
def test_a_fraction_shows_count_and_percent(
    passed: int, total: int, text: str, markdown: str
) -> None:
    assert fraction(passed, total) == text
    assert fraction_md(passed, total) == markdown


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0243, "$0.0243"),
        (0.02433, "$0.0243"),
        (0.00245, "$0.0025"),  # half up at the fourth decimal
        (0.001, "$0.0010"),  # at $0.001: four decimals
        (0.0009994, "$0.000999"),  # just below: six
        (0.00099995, "$0.0010"),  # rounds up to $0.001: four, never $0.001000
        (0.000512, "$0.000512"),  # six decimals below $0.001
        (0.0000005, "$0.000001"),
        (0.0000004, "$0.000000"),  # too small to show, yet not an explicit zero
        (0.0, "$0.00"),  # an explicit zero
        (-0.0, "$0.00"),
        (0.5, "$0.5000"),
        (0.99996, "$1.0000"),
        (1.0, "$1.0000"),
        (12.345, "$12.3450"),
        (1234.5, "$1,234.5000"),
        (-0.0243, "−$0.0243"),
        (-0.000512, "−$0.000512"),
        (None, MISSING),
        (NAN, MISSING),
        (INF, MISSING),
        (-INF, MISSING),
    ],
)
def test_money(value: float | None, expected: str) -> None:
    assert money(value) == expected


def test_money_marks_estimates_and_partial_figures_with_a_tilde() -> None:
    assert money(0.0243, estimated=True) == "~$0.0243"
    assert money(0.0243, partial=True) == "~$0.0243"  # covers only some samples
    assert money(0.000512, estimated=True, partial=True) == "~$0.000512"
    assert money(0.0, estimated=True) == "~$0.00"
    assert money(None, estimated=True) == MISSING
    assert money(None, partial=True) == MISSING
    assert ESTIMATED_LEGEND.startswith("~ estimated from tokens × model rates")


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [
        (0.07, 0, "+7 points"),
        (-0.004, 1, "−0.4 points"),
        (0.125, 0, "+13 points"),  # half up
        (-0.125, 0, "−13 points"),
        (0.0, 0, "0 points"),  # no difference: no sign
        (0.004, 0, "+0.4 points"),  # a difference never reads as none
        (-0.00004, 0, "−0.004 points"),
        (1e-12, 0, "+<0.0001 points"),
        (-1e-12, 0, "−<0.0001 points"),
        (None, 0, MISSING),
        (NAN, 0, MISSING),
    ],
)
def test_points_are_signed(value: float | None, places: int, expected: str) -> None:
    assert points(value, places) == expected


def test_points_are_whole_unless_a_sign_needs_decimals() -> None:
    assert points(0.0) == "0 points"
    assert points(-0.333) == "−33 points"
    assert points(0.3) == "+30 points"


def test_an_interval_of_points_follows_the_points_rule() -> None:
    assert points_interval((0.02, 0.4)) == "+2 to +40 points"
    assert points_interval((0.0, 0.0)) == "0 to 0 points"
    assert points_interval((-0.004, 0.125)) == "−0.4 to +13 points"
    assert points_interval(None) == MISSING


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.025, "2.5 points"),
        (0.0, "0 points"),
        (0.02, "2 points"),
        (0.1, "10 points"),
        (None, MISSING),
    ],
)
def test_a_tolerance_reads_as_it_was_set_in_points(value: float | None, expected: str) -> None:
    assert points_limit(value) == expected


@pytest.mark.parametrize(
    ("moved", "limits", "expected"),
    [
        (0.06, (0.02, 0.025), "6 points"),
        (0.026, (0.0, 0.025), "3 points"),  # beyond 2.5, and reads so
        (0.024, (0.025,), "2 points"),  # below 2.5, and reads so
        (0.0251, (0.03,), "2.5 points"),  # never 3 points against 3 points
        (0.0299, (0.03,), "2.99 points"),
        (0.03, (0.03,), "3 points"),
        (-0.06, (0.0,), "6 points"),  # a size: unsigned
        (None, (0.025,), MISSING),
    ],
)
def test_a_movement_reads_on_its_side_of_each_tolerance(
    moved: float | None, limits: tuple[float, ...], expected: str
) -> None:
    assert points_against(moved, *limits) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (4, "4"),
        (4.0, "4"),
        (0.9, "0.9"),
        (2.5, "2.5"),
        (1 / 3, "0.333"),
        (0.0005, "0.001"),  # half up
        (None, MISSING),
        (NAN, MISSING),
    ],
)
def test_a_number_on_its_own_scale_reads_as_given(value: float | None, expected: str) -> None:
    assert number(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (850.0, "850 ms"),
        (0.4, "0 ms"),
        (12.5, "13 ms"),
        (999.4, "999 ms"),
        (999.6, "1.00 s"),  # rounds to a second: written in seconds
        (1000.0, "1.00 s"),
        (1250.0, "1.25 s"),
        (1234.5, "1.23 s"),
        (1235.0, "1.24 s"),  # half up
        (30000.0, "30.00 s"),
        (1_234_000.0, "1,234.00 s"),
        (None, MISSING),
        (NAN, MISSING),
        (INF, MISSING),
    ],
)
def test_duration(value: float | None, expected: str) -> None:
    assert duration_ms(value) == expected


def test_tokens_have_thousands_separators() -> None:
    assert tokens(12345) == "12,345"
    assert tokens(0) == "0"
    assert tokens(None) == MISSING


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5.0, "$5.00/M"),
        (30.0, "$30.00/M"),
        (0.15, "$0.15/M"),
        (0.075, "$0.075/M"),  # never rounded into another rate
        (1250.0, "$1,250.00/M"),
        (0.0, "$0.00/M"),
        (None, MISSING),
        (NAN, MISSING),
    ],
)
def test_a_rate_per_million_tokens(value: float | None, expected: str) -> None:
    assert per_million(value) == expected


def test_the_working_of_an_estimated_cost() -> None:
    rate = {"input": 5.0, "output": 30.0, "source": "catalog"}
    assert cost_working(2328, 423, rate) == (
        "2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate"
    )
    guessed = {"input": 0.15, "output": 0.6, "source": "fallback"}
    assert cost_working(100, 0, guessed) == "100 in × $0.15/M + 0 out × $0.60/M · fallback rate"
    assert cost_working(None, 423, rate) == "0 in × $5.00/M + 423 out × $30.00/M · catalog rate"


@pytest.mark.parametrize(
    "rate",
    [
        None,
        {},
        {"input": "5", "output": 30.0},
        {"input": 5.0},
        [5.0, 30.0],
        {"input": NAN, "output": 1.0},
    ],
)
def test_a_working_that_cannot_be_read_is_missing(rate: object) -> None:
    assert cost_working(2328, 423, rate) == MISSING
