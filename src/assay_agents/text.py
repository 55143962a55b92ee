r"""Untrusted text made safe to show: the one gate every printed or written string goes through.

Agents, judges, remote endpoints and suite files all supply text that Assay shows: answers,
errors, reasons, names. Shown raw, an ESC sequence retitles the terminal or clears the screen,
a backspace or carriage return hides what was written before it, and a right-to-left override
makes a log line read differently from what it says. :func:`visible` writes each such
character as an escape instead, so the reader sees that it was there:

* C0 controls, DEL and C1 controls as ``\x1b``, ``\x7f``, ``\x9b``;
* the line and paragraph separators as ``\u2028`` and ``\u2029``;
* bidirectional controls (embeddings, overrides, isolates, marks) as ``\u202e``;
* non-characters and lone surrogates as ``\ufffe``, ``\U0001ffff`` or ``\ud800``.

Tabs stay (they are only blanks). A newline (LF, or CRLF, written as LF) is the only line
break: with ``lines=True`` it is kept; otherwise :func:`one_line` folds each run of them to one
space. Every other character some program treats as a break (a lone CR, VT, FF, the file,
group and record separators, NEL, U+2028, U+2029) is shown as its escape, never obeyed, so
the text reads the same on every surface and none of them cuts it short.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["blank", "json_visible", "lines_of", "one_line", "visible"]

#: Bidirectional controls: ALM, LRM/RLM, LRE/RLE/PDF/LRO/RLO and LRI/RLI/FSI/PDI.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

# Non-characters: U+FDD0..U+FDEF and the last two code points of every plane.
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)
)
# Every C0 control but the tab, DEL, every C1 control, the line and paragraph separators,
# the bidi controls, non-characters and lone surrogates.
_SHOWN = "\x7f-\x9f\u2028\u2029" + BIDI_CONTROLS + _NONCHARACTERS + "\ud800-\udfff"
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f" + _SHOWN + "]")
_UNSAFE_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f" + _SHOWN + "]")
_NEWLINE = re.compile(r"\r?\n")
# A run of newlines; the blanks around it are stripped by string methods, since a pattern
# that began with them would rescan a long run of blanks from each of its positions.
_NEWLINES = re.compile(r"(?:\r?\n)+")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, *, lines: bool = False) -> str:
    r"""Write control and bidirectional characters in ``text`` as visible escapes.

    ``visible("\x1b]0;pwned\x07")`` is ``"\\x1b]0;pwned\\x07"``: the characters a
    terminal would act on are shown, never sent. With ``lines=True`` newlines are kept (a
    CRLF as ``\n``); without it they are escaped like any other control.
    """
    if text.isprintable():
        return text  # no control, break or bidirectional character: nothing to write
    if lines:
        return _UNSAFE_IN_LINES.sub(_escape, text.replace("\r\n", "\n"))
    return _UNSAFE.sub(_escape, text)


def lines_of(text: str) -> list[str]:
    r"""The lines of ``text``, split at newlines (LF or CRLF) only, as :meth:`str.splitlines`.

    ``str.splitlines`` also breaks at VT, FF, NEL and U+2028, which :func:`visible` shows as
    escapes: splitting there would cut a message short at a character the reader never sees.
    """
    if not text:
        return []
    lines = _NEWLINE.split(text)
    return lines[:-1] if lines[-1] == "" else lines


def one_line(text: str) -> str:
    """Fold each run of newlines and the blanks around it to one space, then :func:`visible`.

    For places with room for one line only: a table cell, a heading, a list item.
    """
    if text.isprintable():
        return text  # no line break and nothing to escape
    pieces = _NEWLINES.split(text)
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


_UNSAFE_IN_JSON = re.compile("[" + _SHOWN + "]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond the BMP as its surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_visible(document: str) -> str:
    r"""A JSON text with the characters :func:`visible` shows written as ``\u`` escapes.

    JSON escapes C0 controls itself but lets DEL, C1, the line separators, bidirectional
    controls and non-characters through; escaping them keeps the data exactly as it was (they
    can only occur inside strings) and the terminal untouched.
    """
    return _UNSAFE_IN_JSON.sub(_json_escape, document)


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
