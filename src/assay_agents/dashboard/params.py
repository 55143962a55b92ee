"""Query parameters read strictly: a malformed one is a 400 page naming it, never a guess."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta

from assay_agents.evaluation.browsing import STATES
from assay_agents.store.browse import RunFilter

#: Runs on one page of the list.
PER_PAGE = 50
#: The most runs a page may be asked to hold (``?per=``).
MAX_PER_PAGE = 200
#: The most runs a trend draws.
MAX_TREND = 500
_LONGEST = 500


class BadParameter(ValueError):
    """A query parameter that does not read: its name and what was expected."""


def text(query: Mapping[str, str], name: str) -> str | None:
    """The parameter ``name`` as given, ``None`` when absent or empty."""
    value = query.get(name)
    if value is None or value == "":
        return None
    if len(value) > _LONGEST or "\x00" in value:
        raise BadParameter(f"?{name}: too long or holding a NUL character")
    return value


def required(query: Mapping[str, str], name: str) -> str:
    """The parameter ``name``; a :class:`BadParameter` when it is missing."""
    value = text(query, name)
    if value is None:
        raise BadParameter(f"?{name} is required")
    return value


def number(query: Mapping[str, str], name: str, default: int, *, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``, written in ASCII digits (never ``²`` or ``١``)."""
    value = text(query, name)
    if value is None:
        return default
    if not (value.isascii() and value.isdigit()) or not low <= int(value) <= high:
        raise BadParameter(f"?{name}={value!r}: expected a whole number from {low} to {high}")
    return int(value)


def day(query: Mapping[str, str], name: str) -> date | None:
    """A date written ``YYYY-MM-DD``."""
    value = text(query, name)
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadParameter(f"?{name}={value!r}: expected a date as YYYY-MM-DD") from None


def run_filter(query: Mapping[str, str]) -> RunFilter:
    """The runs list's filters: suite, agent, model, status, from, to, meta (``KEY=VALUE``)."""
    status = text(query, "status")
    if status is not None and status not in STATES:
        raise BadParameter(f"?status={status!r}: expected one of {', '.join(STATES)}")
    start, end = day(query, "from"), day(query, "to")
    if start is not None and end is not None and end < start:
        raise BadParameter("?to is before ?from")
    meta = text(query, "meta")
    pair = None
    if meta is not None:
        key, sep, value = meta.partition("=")
        if not sep or not key.strip():
            raise BadParameter(f"?meta={meta!r}: expected KEY=VALUE, such as revision=abc123")
        pair = (key.strip(), value.strip())
    return RunFilter(
        suite=text(query, "suite"),
        agent=text(query, "agent"),
        model=text(query, "model"),
        status=status,
        started_from=None if start is None else _midnight(start),
        started_before=None if end is None else _midnight(end) + timedelta(days=1),
        metadata=pair,
    )


def _midnight(value: date) -> datetime:
    return datetime(value.year, value.month, value.day, tzinfo=UTC)
