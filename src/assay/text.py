r"""Untrusted text made safe to show: the one gate every printed or written string goes through.

Agents, judges, remote endpoints and suite files all supply text that Assay shows: answers,
errors, reasons, names. Shown raw, an ESC sequence retitles the terminal or clears the screen,
a backspace or carriage return hides what was written before it, and a right-to-left override
makes a log line read differently from what it says. :func:`visible` writes each such
character as an escape instead, so the reader sees that it was there:

* C0 controls, DEL and C1 controls as ``\x1b``, ``\x7f``, ``\x9b``;
* bidirectional controls (embeddings, overrides, isolates, marks) as ``\u202e``.

Tabs stay (they are only blanks). Line breaks are structure: with ``lines=True`` every kind
(CRLF, a lone CR, VT, FF, NEL, U+2028, ...) becomes a plain ``\n``; otherwise
:func:`one_line` folds each run of them to one space.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["blank", "json_visible", "one_line", "visible"]

#: Bidirectional controls: ALM, LRM/RLM, LRE/RLE/PDF/LRO/RLO and LRI/RLI/FSI/PDI.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

_BREAK_CHARS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile(r"\r\n|[" + _BREAK_CHARS + "]")
# A run of breaks; the blanks around it are stripped by string methods, since a pattern
# that began with them would rescan a long run of blanks from each of its positions.
_BREAKS = re.compile(r"(?:\r\n|[" + _BREAK_CHARS + r"])+")
# Every C0 control but the tab, DEL, every C1 control, and the bidi controls.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_UNSAFE_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    r"""Write control and bidirectional characters in ``text`` as visible escapes.

    ``visible("\x1b]0;pwned\x07")`` is ``"\\x1b]0;pwned\\x07"``: the characters a
    terminal would act on are shown, never sent. With ``lines=True`` line breaks of every
    kind are kept, as ``\n``; without it they are escaped like any other control.
    """
    if text.isprintable():
        return text  # no control, break or bidirectional character: nothing to write
    if lines:
        return _UNSAFE_IN_LINES.sub(_escape, _BREAK.sub("\n", text))
    return _UNSAFE.sub(_escape, text)


def one_line(text: str) -> str:
    """Fold each run of line breaks and the blanks around it to one space, then :func:`visible`.

    For places with room for one line only: a table cell, a heading, a list item.
    """
    if text.isprintable():
        return text  # no line break and nothing to escape
    pieces = _BREAKS.split(text)
    if len(pieces) > 1:
        last = len(pieces) - 1
        pieces = [
            piece.rstrip(" \t")
            if index == 0
            else piece.lstrip(" \t")
            if index == last
            else piece.strip(" \t")
            for index, piece in enumerate(pieces)
        ]
    return visible(" ".join(pieces))


_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f" + BIDI_CONTROLS + "]")


def json_visible(document: str) -> str:
    r"""A JSON text with DEL, C1 and bidirectional controls written as ``\u`` escapes.

    JSON escapes C0 controls itself but lets these through; escaping them keeps the data
    exactly as it was (they can only occur inside strings) and the terminal untouched.
    """
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def blank(text: str | None) -> bool:
    """Whether ``text`` shows nothing: absent, or only whitespace and invisible format characters.

    A zero-width space, a joiner, a byte-order mark or a bidirectional mark (Unicode category
    ``Cf``) renders as nothing, so an answer made of them says nothing either.
    """
    return text is None or all(
        char.isspace() or unicodedata.category(char) == "Cf" for char in text
    )


def suggestion(name: object, candidates: Iterable[str]) -> str:
    """`` (did you mean 'forbid'?)`` when a candidate is close to ``name``, else ``""``."""
    if not isinstance(name, str):
        return ""
    import difflib  # only when a name was not found: the start of a command stays light

    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
