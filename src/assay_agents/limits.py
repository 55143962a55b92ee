"""The bounds on every number a run is given, defined once.

A count or a duration past these is a typo or a hostile file, never an evaluation: ten
thousand samples per case, or a concurrency of 10**20, would only exhaust the machine (or
overflow the database) long after the run was accepted. The command line (Typer's ``min``
and ``max``), the project configuration, a suite's settings, :func:`assay.run`'s options and
the settings of an archived JSON report all read this one table, so a value accepted in one
place is never refused in another. A value past a bound is a
:class:`~assay_agents.errors.SpecError` naming the field (exit 2).
"""

from __future__ import annotations

import contextlib
import math
import stat
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from assay_agents.errors import SpecError

__all__ = [
    "BOUNDS",
    "DAY",
    "MAX_BODY_FILE_BYTES",
    "MAX_CAPTURED_TEXT_CHARS",
    "MAX_ITEM_FILES",
    "MAX_JUDGE_CALL_ATTEMPTS",
    "MAX_JUDGE_CALL_COST_USD",
    "MAX_JUDGE_CALL_TOKENS",
    "MAX_REPORT_BYTES",
    "MAX_SUITE_FILE_BYTES",
    "Bound",
    "bounded",
    "option_range",
    "problem",
    "read_bounded",
    "reads_confined_to",
]

#: The longest any timeout or retry window may be (seconds).
DAY = 86_400
#: The largest suite file read: a YAML suite or catalog, an item file, a pasted text,
#: ``suite.toml`` or the project configuration (16 MiB; real ones are kilobytes).
MAX_SUITE_FILE_BYTES = 16 * 1024 * 1024
#: The largest replay ``body_file`` read (64 MiB).
MAX_BODY_FILE_BYTES = 64 * 1024 * 1024
#: The largest archived JSON report read (256 MiB: far beyond any real run).
MAX_REPORT_BYTES = 256 * 1024 * 1024
#: The most entries one list or table of a suite document may hold (its cases, its sets, the
#: values of one field): past it the file is a hostile one, refused before any case is built.
MAX_DOCUMENT_ENTRIES = 100_000
#: The longest text one captured span attribute keeps (a tool's arguments or result): past
#: it the text is cut and ends with a marker saying how much was left out.
MAX_CAPTURED_TEXT_CHARS = 1_000_000
#: The most item files one suite folder may hold (each is a case; more is a hostile folder).
MAX_ITEM_FILES = 10_000
#: What one judge call may plausibly have taken, as an archived report states it: HTTP
#: attempts (retries included), tokens in either direction, and cost. Past these the figure
#: is a forgery or a typo, and the report is refused.
MAX_JUDGE_CALL_ATTEMPTS = 1_000
MAX_JUDGE_CALL_TOKENS = 10_000_000
MAX_JUDGE_CALL_COST_USD = 1_000.0
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Bound:
    """The inclusive range of one setting, and what its unit is called in an error."""

    low: int | float
    high: int | float
    unit: str
    whole: bool = True


#: Every bounded setting by its field name (the name of the option without ``--``).
BOUNDS = MappingProxyType(
    {
        "samples": Bound(1, 10_000, "samples per case and model"),
        "models": Bound(1, 100, "models"),
        "concurrency": Bound(1, 10_000, "samples in flight"),
        "model_concurrency": Bound(1, 10_000, "samples of one model in flight"),
        "sample_concurrency": Bound(1, 10_000, "samples of one case in flight"),
        "concurrency_floor": Bound(1, 10_000, "samples of one model in flight"),
        "concurrency_ceiling": Bound(1, 10_000, "samples of one model in flight"),
        "rate_limit_retries": Bound(0, 1_000, "retries per sample"),
        "votes": Bound(1, 100, "judge votes"),
        "timeout": Bound(0.001, DAY, "seconds", whole=False),
        "judge_timeout": Bound(0.001, DAY, "seconds", whole=False),
        "store_retry": Bound(0.001, DAY, "seconds", whole=False),
        "lease_timeout": Bound(0.001, DAY, "seconds", whole=False),
        "judge_limit": Bound(0, 10_000, "judge calls"),
        "tolerance": Bound(0.0, 1.0, "of the 0–1 scale", whole=False),
        "drift_tolerance": Bound(0.0, 1.0, "of the 0–1 scale", whole=False),
        "limit": Bound(1, 100_000, "runs"),
    }
)

_Value = TypeVar("_Value")


def problem(name: str, value: Any) -> str | None:
    """What is wrong with ``value`` as the setting ``name``, or ``None`` when it is in bounds."""
    bound = BOUNDS[name]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (bound.whole and not isinstance(value, int))
    ):
        return f"{value!r} is not a {'whole ' if bound.whole else ''}number"
    if not math.isfinite(value) or not bound.low <= value <= bound.high:
        shown = f"{value:,}" if isinstance(value, int) else f"{value!r}"
        return f"{shown} is outside {bound.low:,}–{bound.high:,} {bound.unit}"
    return None


def bounded(
    name: str, value: _Value, *, field: str | None = None, location: str | None = None
) -> _Value:
    """``value`` when it is within the bounds of ``name``; a :class:`SpecError` otherwise."""
    found = problem(name, value)
    if found is not None:
        raise SpecError(found, location=location, field=field or name)
    return value


def read_bounded(path: Path, most: int, what: str = "a suite file") -> bytes:
    """The bytes of the regular file ``path``, at most ``most`` of them.

    A FIFO or a device (which would block or never end) is refused unopened, and a file
    past the bound before a byte is read; one that grows while it is read stops at the
    bound. Every refusal is a :class:`SpecError` naming the file.
    """
    location = str(path)
    _refuse_outside(path, location)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SpecError("is not a regular file", location=location)
        if info.st_size > most:
            raise SpecError(_too_big(most, what), location=location)
        chunks: list[bytes] = []
        size = 0
        with path.open("rb") as stream:
            # Read in chunks: read(most) would reserve the whole bound up front.
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > most:
                    raise SpecError(_too_big(most, what), location=location)
                chunks.append(chunk)
    except FileNotFoundError:
        raise SpecError("no such file", location=location) from None
    except OSError as error:
        raise SpecError(f"cannot be read: {error.strerror or error}", location=location) from None
    return b"".join(chunks)


#: The folder every bounded read must stay inside, when a caller confines them.
_CONFINED_TO: ContextVar[Path | None] = ContextVar("assay_reads_confined_to", default=None)


@contextlib.contextmanager
def reads_confined_to(folder: Path) -> Iterator[None]:
    """Within the block, :func:`read_bounded` refuses any file outside ``folder``.

    A server reading files for a client (``assay-agents mcp``) confines every file a document names
    too (a replay ``body_file``), not only the one it was asked for. The refusal comes before
    the file is looked at, so it tells nothing of whether the file exists.
    """
    token = _CONFINED_TO.set(folder.resolve())
    try:
        yield
    finally:
        _CONFINED_TO.reset(token)


def _refuse_outside(path: Path, location: str) -> None:
    folder = _CONFINED_TO.get()
    if folder is None:
        return
    resolved = path.resolve()
    if resolved != folder and folder not in resolved.parents:
        raise SpecError(
            "is outside the working directory; name a file inside it", location=location
        )


def _too_big(most: int, what: str) -> str:
    return f"is more than {what} may be ({most:,} bytes)"


def option_range(name: str) -> dict[str, Any]:
    """The ``min`` and ``max`` of the command-line option for the setting ``name``."""
    bound = BOUNDS[name]
    return {"min": bound.low, "max": bound.high}
