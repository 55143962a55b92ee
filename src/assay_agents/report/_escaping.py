"""User strings in Markdown rendered as text, never as markup.

An answer, a judge's reason or a case name may hold ``<script>``, ``<img onerror=…>``, a
remote image (a tracking pixel in a pull-request comment), a ``javascript:`` link or a
heading. Everything a user, an agent or a remote endpoint wrote reaches Markdown through one
of these functions:

* :func:`md_cell` HTML-escapes ``& < >`` and backslash-escapes what GitHub-flavoured
  Markdown would act on inside a line: code spans, emphasis, links and images (``[``, ``]``,
  ``!``), table pipes, strikethrough, math (``$``) and autolinks (``://``, ``www.``,
  ``mailto:``, ``xmpp:``). GitHub also links an email address and, as it renders a comment,
  a mention (``@octocat``, which notifies that user) and a reference (``#1``, ``GH-1``);
  no backslash or entity stops those, since it reads the rendered text, so a zero-width
  space (``&#8203;``) follows the ``@``, ``#`` or ``GH-``: the text reads the same.
  :func:`md_inline` and :func:`md_quote` also escape what would make a block at the start of
  a line: headings, lists, rules, setext underlines. The reader sees the characters as
  written.
* :func:`md_fence` puts text in a code fence longer than any backtick run inside it, so
  nothing inside can close it.
* :func:`md_code` makes a one-line code span the same way.

Control and bidirectional characters are made visible first (:func:`assay_agents.text.visible`).
"""

from __future__ import annotations

import re

from assay_agents.text import one_line, visible

__all__ = ["md_cell", "md_code", "md_fence", "md_inline", "md_quote"]

# No tag can open once "<" is escaped, so a '"' can never end up in an attribute: it stays.
_HTML = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
# Punctuation GitHub-flavoured Markdown gives a meaning to anywhere in a line; an underscore
# only at the edge of a word. Every pattern here begins with the character it escapes (the
# context is looked at behind it), so a long answer is scanned in one quick pass.
_INLINE = "\\`*[]!|~$"  # the backslash first, so that no escape is escaped again
_UNDERSCORE = re.compile(r"_(?:(?<![^\W_]_)|(?![^\W_]))")
_SCHEME = re.compile(r"(?i):(?<=[a-z0-9]:)(?=//)")
_WWW = re.compile(r"\.(?<=[wW][wW][wW]\.)(?<![\w.][wW][wW][wW]\.)")
_PROTOCOL = re.compile(
    r":(?:(?<=[mM][aA][iI][lL][tT][oO]:)(?<![a-zA-Z0-9]......:)"
    r"|(?<=[xX][mM][pP][pP]:)(?<![a-zA-Z0-9]....:))"
)
# An email address or a mention (@), an issue or pull-request reference (#1, GH-1).
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_REFERENCE = re.compile(r"#(?<!\w#)(?=\d)|[gG](?<!\w[gG])[hH]-(?=\d)")
_UNLINKED = "&#8203;"
# What makes a block of a line's start: a heading, a list item, a rule, a setext underline.
_BLOCK_MARKER = re.compile(r"^[#+=-]")
_ORDERED_MARKER = re.compile(r"^(\d+)([.)])")


def _inline(line: str) -> str:
    for char, entity in _HTML:
        line = line.replace(char, entity)
    for char in _INLINE:
        if char in line:
            line = line.replace(char, "\\" + char)
    if "_" in line:
        line = _UNDERSCORE.sub(r"\\_", line)
    if ":" in line:
        line = _PROTOCOL.sub(r"\\:", _SCHEME.sub(r"\\:", line))
    if "." in line:
        line = _WWW.sub(r"\\.", line)
    if "#" in line or "-" in line:  # before mentions: an inserted entity holds a "#"
        line = _REFERENCE.sub(r"\g<0>" + _UNLINKED, line)
    if "@" in line:
        line = _MENTION.sub("@" + _UNLINKED, line)
    return line


def _line(line: str) -> str:
    # Leading blanks would make an indented code block, in which escapes show literally.
    line = _BLOCK_MARKER.sub(lambda m: "\\" + m.group(), _inline(line).lstrip(" \t"), count=1)
    return _ORDERED_MARKER.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line, count=1)


def md_inline(text: str) -> str:
    r"""Escape text for Markdown paragraphs, keeping its line breaks (as plain ``\n``)."""
    return "\n".join(_line(line) for line in visible(text, lines=True).split("\n"))


def md_cell(text: str) -> str:
    """Escape text for one table cell, or after a prefix on a line: one line, ``|`` escaped.

    A list or heading marker means nothing there, so a leading ``#`` or ``1.`` is kept.
    """
    return _inline(one_line(text)).strip()


def md_quote(text: str) -> str:
    """Quote text as a Markdown block quote, one ``>`` per line, escaped as :func:`md_inline`."""
    return "\n".join(f"> {line}".rstrip() for line in md_inline(text).split("\n"))


def md_code(text: str) -> str:
    """A one-line code span that the text cannot close (for ids; not for table cells)."""
    shown = one_line(text)
    ticks = "`" * (_longest_backticks(shown) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def md_fence(text: str, language: str = "") -> str:
    """A fenced code block that nothing in ``text`` can close or break out of."""
    shown = visible(text, lines=True)
    ticks = "`" * max(3, _longest_backticks(shown) + 1)
    return f"{ticks}{language}\n{shown}\n{ticks}"


def _longest_backticks(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(run) for run in runs), default=0)
