"""Two answers diffed word by word, for the case page's side-by-side view."""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import SequenceMatcher
from typing import Literal

#: What a piece of the diff is: in both answers, only the baseline's, only the current's.
Kind = Literal["same", "removed", "added"]
Piece = tuple[Kind, str]

_WORDS = re.compile(r"\s+|\S+")
#: Past this many words a diff is not worth its cost: the answers are shown, not diffed.
MAX_WORDS = 5_000


def word_diff(before: str, after: str) -> Iterator[Piece]:
    """``before`` turned into ``after`` as pieces of kept, removed and added words."""
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    if len(old) + len(new) > MAX_WORDS:
        yield ("removed", before)
        yield ("added", after)
        return
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            yield ("same", "".join(old[i1:i2]))
            continue
        if i2 > i1:
            yield ("removed", "".join(old[i1:i2]))
        if j2 > j1:
            yield ("added", "".join(new[j1:j2]))
