"""How a check's reason quotes what it saw: a few items, and how many more.

A reason is read in a terminal, a report and a pull-request comment; the evidence itself (every
call, every observed item) stays in the sample. So a reason quotes at most
:data:`QUOTED_ITEMS` items of a list, each cut at :data:`QUOTED_ITEM` characters, and says how
many it left out: a check over 9,001 events writes a line, not 60,000 characters. Every check
that quotes a list quotes it here; :func:`bounded_reason` is the ceiling on any reason at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from assay_agents.spec import JSON, canonical_json

T = TypeVar("T")

#: How many items of a list a reason quotes before it counts the rest.
QUOTED_ITEMS = 5
#: The most characters of one quoted item.
QUOTED_ITEM = 80
#: The most characters of any check's reason or error (a custom check's too).
MAX_CHECK_REASON = 1_000


def quoted(items: Sequence[T], render: Callable[[T], str] = str) -> str:
    """``a, b, c, d, e, … and 8,996 more``: the first items written by ``render``, cut short.

    Only the items quoted are written, so a long list costs no more than a short one.
    """
    shown = ", ".join(_cut(render(item)) for item in items[:QUOTED_ITEMS])
    rest = len(items) - min(len(items), QUOTED_ITEMS)
    return f"{shown}, … and {rest:,} more" if rest else shown


def quoted_items(items: Sequence[JSON]) -> str:
    """``[trip.set_name, trip.rebook, … and 12 more]``: strings as they are, others as JSON."""
    return "[" + quoted(items, _text) + "]"


def item_text(item: JSON) -> str:
    """One observed item as a reason writes it: a string as it is, anything else as JSON."""
    return _cut(_text(item))


def bounded_reason(text: str, most: int = MAX_CHECK_REASON) -> str:
    """``text``, or its first ``most`` characters and how many more there were."""
    if len(text) <= most:
        return text
    return f"{text[:most]}… ({len(text) - most:,} more characters)"


def _text(item: JSON) -> str:
    return item if isinstance(item, str) else canonical_json(item)


def _cut(text: str) -> str:
    return text if len(text) <= QUOTED_ITEM else text[: QUOTED_ITEM - 1] + "…"
