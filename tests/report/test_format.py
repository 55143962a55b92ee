"""The figure rules every surface shares."""

from __future__ import annotations

import pytest

from assay.report.format import (
    ESTIMATED_LEGEND,
    MISSING,
    duration_ms,
    fraction,
    fraction_md,
    money,
    percent,
    percents_apart,
    score,
    tokens,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.875, "88%"),
        (0.125, "13%"),  # half up, although 12.5 rounds to 12 under banker's rounding
        (0.005, "1%"),
        (0.145, "15%"),  # 0.145 * 100 is 14.499... in binary; the printed decimal rounds up
        (0.994, "99%"),
        (0.995, "100%"),
        (0.0, "0%"),
        (1.0, "100%"),
        (2 / 3, "67%"),
        (None, MISSING),
        (float("nan"), MISSING),
    ],
)
def test_percent_rounds_half_up(value: float | None, expected: str) -> None:
    assert percent(value) == expected


def test_percent_takes_more_decimals_when_asked() -> None:
    assert percent(0.625, 1) == "62.5%"
    assert percent(0.5, 1) == "50.0%"
    assert percent(0.12345, 2) == "12.35%"  # half up


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((0.625, 0.5), ("62.5%", "50%")),
        ((0.25, 0.5), ("25%", "50%")),
        ((0.5, 0.5), ("50%", "50%")),
        ((1 / 3, 0.9), ("33.3%", "90%")),
        # Whole numbers would read 63% < 63%, one decimal 62.5% < 62.5%.
        ((0.6249, 0.625), ("62.49%", "62.5%")),
        ((0.62496, 0.625), ("62.496%", "62.5%")),
        ((0.6251, 0.625), ("62.51%", "62.5%")),
    ],
)
def test_figures_compared_with_each_other_never_read_the_same_when_they_differ(
    values: tuple[float, float], expected: tuple[str, str]
) -> None:
    assert percents_apart(*values) == expected


def test_fraction_shows_count_and_percent() -> None:
    assert fraction(14, 16) == "14/16 · 88%"
    assert fraction(1, 8) == "1/8 · 13%"
    assert fraction(0, 3) == "0/3 · 0%"


def test_fraction_md_uses_parentheses() -> None:
    assert fraction_md(14, 16) == "14/16 (88%)"


def test_fraction_of_nothing_is_missing() -> None:
    assert fraction(0, 0) == MISSING
    assert fraction_md(0, 0) == MISSING


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2 / 3, "0.667"),
        (1.0, "1.000"),
        (0.0, "0.000"),
        (0.0005, "0.001"),
        (0.0125, "0.013"),
        (0.00049, "0.000"),
        (None, MISSING),
    ],
)
def test_score_has_three_decimals_half_up(value: float | None, expected: str) -> None:
    assert score(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0243, "$0.0243"),
        (0.02433, "$0.0243"),
        (0.00245, "$0.0025"),  # half up at the fourth decimal
        (0.001, "$0.0010"),
        (0.000512, "$0.000512"),  # six decimals below $0.001
        (0.0000005, "$0.000001"),
        (0.0, "$0.00"),  # an explicit zero
        (0.5, "$0.5000"),
        (0.99996, "$1.00"),  # rounds into dollars: two decimals, not $1.0000
        (1.0, "$1.00"),
        (12.345, "$12.35"),
        (1234.5, "$1,234.50"),
        (1234567.891, "$1,234,567.89"),
        (None, MISSING),
    ],
)
def test_money(value: float | None, expected: str) -> None:
    assert money(value) == expected


def test_money_marks_estimates_with_a_tilde() -> None:
    assert money(0.0243, estimated=True) == "~$0.0243"
    assert money(12.345, estimated=True) == "~$12.35"
    assert money(0.0, estimated=True) == "~$0.00"
    assert money(None, estimated=True) == MISSING
    assert ESTIMATED_LEGEND.startswith("~ ")


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
    ],
)
def test_duration(value: float | None, expected: str) -> None:
    assert duration_ms(value) == expected


def test_tokens_have_thousands_separators() -> None:
    assert tokens(12345) == "12,345"
    assert tokens(0) == "0"
    assert tokens(None) == MISSING
