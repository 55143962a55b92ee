"""The comparison stored with a run: checked when the run is read, so a damaged one is named.

The comparison keeps its stored form on the run (reports rebuild it from there); reading it
here once, as the store loads the run, turns a damaged or hand-edited one into a
:class:`RecordError` instead of a traceback in whichever report reads it later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.record._typed import RecordError


def checked_comparison(data: object) -> dict[str, Any] | None:
    """``data`` when it reads as a stored comparison (or is none), else :class:`RecordError`."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise RecordError("comparison", f"expected an object, not {type(data).__name__}")
    from assay.compare import read_stored

    try:
        read_stored(data)
    except KeyError as error:
        raise RecordError("comparison", f"missing {error.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError, IndexError) as error:
        raise RecordError("comparison", f"does not read ({type(error).__name__})") from None
    return dict(data)
