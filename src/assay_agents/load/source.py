"""How a path is loaded and what is selected from it.

Kept apart from the loaders: running a Python suite needs it without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Source:
    """How to load and select from a path.

    The catalog's product and set, an agent that overrides the files' own, and which cases
    to keep. ``judge_for(model)`` makes the judge a catalog set names, when the caller chose
    none. With ``imports=False`` no agent or harness the files name is imported.
    """

    product: str | None = None
    set: str | None = None
    agent: Any = None
    agent_name: str | None = None
    groups: Sequence[str] | None = None
    cases: Sequence[str] | None = None
    include_production_only: bool = True
    judge_for: Callable[[str], Any] | None = None
    imports: bool = True
