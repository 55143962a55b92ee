"""The rules a check's settings meet when it is made, so nonsense never reaches a verdict.

Each rule raises :class:`~assay_agents.errors.SpecError` whose field is the check (its metric name)
and whose message names the setting: ``token_budget: tokens must be a whole number ≥ 1
(got -5)``. A loader that builds checks from a file adds the file and its field path.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from assay_agents.errors import SpecError

#: How much of a refused value an error shows: enough to recognise it, never a wall of text.
_SHOWN = 60


def got(value: Any) -> str:
    """The refused value, as the end of a message: ``(got -5)``."""
    shown = repr(value)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 1] + "…"
    return f"(got {shown})"


def refuse(check: str, detail: str) -> SpecError:
    """The error for a setting of ``check`` that means nothing."""
    return SpecError(detail, field=check)


def name_of(value: Any, kind: str) -> str:
    """A check's metric name: a non-empty string (``kind`` names the check when it is not)."""
    if not isinstance(value, str) or not value.strip():
        raise refuse(kind, f"name must be a non-empty string {got(value)}")
    return value


def text(check: str, setting: str, value: Any) -> str:
    """A text or pattern to look for: a non-empty string."""
    if not isinstance(value, str) or not value:
        raise refuse(check, f"{setting} must be a non-empty string {got(value)}")
    return value


def category(check: str, value: Any) -> str:
    """The category a check counts under: a non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise refuse(check, f"category must be a non-empty string {got(value)}")
    return value


def flag(check: str, setting: str, value: Any) -> bool:
    """An on/off setting: a real bool, so ``"no"`` is not quietly true."""
    if not isinstance(value, bool):
        raise refuse(check, f"{setting} must be true or false {got(value)}")
    return value


def threshold(check: str, value: Any) -> float:
    """An inclusive threshold: a finite number in [0, 1], not a bool."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise refuse(check, f"threshold must be a number in [0, 1] {got(value)}")
    return float(value)


def count(check: str, setting: str, value: Any) -> int:
    """A budget or length counted in whole units: an int of at least 1, not a bool.

    Zero is refused too: a budget of nothing, or a minimum of no characters, says nothing
    (an empty answer already fails every content rule).
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise refuse(check, f"{setting} must be a whole number ≥ 1 {got(value)}")
    return value


def positive(check: str, setting: str, value: Any) -> float:
    """A measured budget (milliseconds): a finite number above 0, not a bool."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise refuse(check, f"{setting} must be a finite number > 0 {got(value)}")
    return float(value)


def names(check: str, setting: str, value: Any) -> tuple[str, ...]:
    """A list of tool names: one or more non-empty strings.

    A bare string is refused here (its characters are not names); the factories turn one
    name into a list of one before they get here.
    """
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise refuse(check, f"{setting} must list one or more tool names {got(value)}")
    listed = tuple(value)
    if not listed:
        raise refuse(check, f"{setting} must list one or more tool names {got(value)}")
    for index, item in enumerate(listed):
        text(check, f"{setting}[{index}]", item)
    return listed
