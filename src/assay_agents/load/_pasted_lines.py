"""The line format of pasted scenarios: headings, list markers, backticks and ``|`` options.

A heading starts a group: ``# Orders``, a bold line ``**Orders**``, or a short line (at most
80 characters) ending in a colon (``Find tickets:``) that holds no ``?`` and no `` | ``.
``#1 priority: ...`` (``#`` and a digit) is a prompt. List markers (``-``, ``*``, ``1.``) are
dropped, as are lines that are only a rule (``---``). A line of ``=`` (``======``) makes the
line above it a heading, as in Markdown; a line of ``---`` stays a rule. Backticks around a
span inside a prompt are removed; a prompt that is backticked whole may be followed by
notes. A descriptive option with an empty value (``| notes:``) gives nothing; an empty check
(``| contains:``) is refused.

Pasted text may come from anyone, so every line is read in time linear in its length: the
patterns here have no repetition that can backtrack into another (a bold heading is read
with string methods, not a pattern), and spans are paired once per line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from assay_agents.errors import SpecError
from assay_agents.load.scenario import Expectations, Origin, Scenario, refuse_contradiction
from assay_agents.text import suggestion

OPTIONS = ("tools", "forbid_tools", "contains", "not_contains", "key", "tags", "group", "notes")
_LISTS = ("tools", "forbid_tools", "tags")
_ONCE = ("key", "group", "notes")
#: Options that describe a scenario: empty, they give nothing. The others are checks, and an
#: empty check (``| contains:``) is refused: left out, it would pass a case that checks nothing.
_DESCRIPTIVE = ("key", "tags", "group", "notes")
_MARKER = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
#: A line of ``=`` underlines the line above as a heading (Markdown's other heading form);
#: under no prompt it is a rule.
_UNDERLINE = re.compile(r"^={2,}$")
_SPAN = re.compile(r"`[^`\n]*`")
_NOTES_SEPARATORS = "-—–:"
#: The longest group slug or made-up key stem: a key built from a whole heading once made
#: a long heading over many prompts hold heading x prompts characters.
SLUG_LIMIT = 64
#: The most prompts one pasted text may hold: a paste is a handful of prompts, and reading
#: stops here rather than spend time on a file made of nothing but lines.
MAX_PROMPTS = 10_000
_DIGEST = 8
#: The longest line (list marker aside) a colon at its end makes a heading: longer is a prompt.
LABEL_LIMIT = 80


@dataclass(frozen=True, slots=True)
class Line:
    """One prompt line as read: its scenario (key ``""`` unless named) and group name."""

    scenario: Scenario
    group_name: str | None


def read_lines(text: str, location: str) -> list[Line]:
    """Every prompt of a pasted text, in order, grouped under the heading above it."""
    read: list[Line] = []
    group: tuple[str, str] | None = None
    above = ""  # the prompt read from the line just above, else ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if _UNDERLINE.match(line) and above:
            read.pop()  # "Orders" over "======" is a heading, as Markdown reads it
            group = _group(above.rstrip(":").strip())
        above = ""
        if not line or _RULE.match(line) or _UNDERLINE.match(line):
            continue
        heading = _heading(line)
        if heading is not None:
            group = _group(heading)
            continue
        if len(read) == MAX_PROMPTS:
            raise SpecError(
                f"holds more than {MAX_PROMPTS:,} prompts (line {number}); a pasted list is for "
                "a handful: put more in item files or a YAML suite",
                location=location,
            )
        read.append(_line(_MARKER.sub("", line), group, location, f"line {number}"))
        above = _MARKER.sub("", line)
    return read


def slug(text: str, limit: int = SLUG_LIMIT) -> str:
    """Letters and digits, lower-cased, runs of anything else as one underscore.

    At most ``limit`` characters: a longer slug keeps its start and ends in a digest of the
    whole, so slugs of texts that differ only past the limit stay apart.
    """
    return capped(re.sub(r"[\W_]+", "_", text.casefold()).strip("_"), limit)


def capped(text: str, limit: int = SLUG_LIMIT) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and a digest of it."""
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:_DIGEST]
    return f"{text[: limit - _DIGEST - 1].rstrip('_')}_{digest}"


def _heading(line: str) -> str | None:
    """The heading's text (``""`` for a bare ``#``), or ``None`` for a prompt."""
    if line.startswith("#"):
        # "#1 priority: ..." is a prompt; "## Refunds" a heading like "# Refunds".
        text = line.lstrip("#")
        return None if text[:1].isdigit() else text.strip().rstrip(":").strip()
    unmarked = _MARKER.sub("", line)
    bold = _bold_heading(unmarked)
    if bold:
        return bold
    return _label_heading(unmarked)


def _label_heading(line: str) -> str | None:
    """The label of a short line ending in a colon (``Find tickets:``), else ``None``.

    A question (``?``) or a line with options (`` | ``) is a prompt, however it ends.
    """
    if len(line) > LABEL_LIMIT or not line.endswith(":") or "?" in line or " | " in line:
        return None
    return line.rstrip(":").strip() or None


def _bold_heading(line: str) -> str | None:
    """The text of ``**Orders**`` (or ``**Orders:**``, ``**Orders**:``), else ``None``.

    String methods, not a pattern: the pattern this replaces backtracked cubically on a
    long line of spaces.
    """
    if not line.startswith("**"):
        return None
    body = line[2:]
    body = (body[:-1] if body.endswith(":") else body).rstrip()
    if not body.endswith("**"):
        return None
    inner = body[:-2]
    if not inner or "*" in inner:
        return None
    # The text before an optional colon and the spaces around it.
    text = inner.rstrip()
    text = text[:-1].rstrip() if text.endswith(":") else text
    return (text or inner[:1]).strip()


def _group(heading: str) -> tuple[str, str] | None:
    return (slug(heading) or "scenario", heading) if heading else None


def _line(line: str, group: tuple[str, str] | None, location: str, where: str) -> Line:
    head, *options = _split_options(line)
    prompt, notes = _prompt(head.strip(), location, where)
    values: dict[str, list[str]] = {}
    for option in options:
        name, value = _option(option, location, where)
        if not value:
            continue  # an empty value (``| notes:``) gives nothing, as if left out
        if name in _ONCE and name in values:
            raise SpecError(f"option {name!r} is given twice", location=location, field=where)
        values.setdefault(name, []).extend(value)
    if "notes" in values:
        if notes is not None:
            raise SpecError(
                "has notes after its backticked prompt and a notes option; give one",
                location=location,
                field=where,
            )
        notes = values["notes"][0]
    if "group" in values:
        group = _group(values["group"][0])
    expect = Expectations(
        tuple(values.get("tools", ())),
        tuple(values.get("contains", ())),
        tuple(values.get("not_contains", ())),
        forbid_tools=tuple(values.get("forbid_tools", ())),
    )
    if expect.forbid_tools:  # most lines forbid nothing: nothing to contradict
        try:
            refuse_contradiction(expect, "forbid_tools")
        except SpecError as error:
            raise SpecError(
                f"{error.field}: {error.detail}", location=location, field=where
            ) from None
    scenario = Scenario(
        values.get("key", [""])[0],
        prompt,
        None if group is None else group[0],
        expect,
        notes,
        tags=tuple(values.get("tags", ())),
        origin=Origin(location, where),
    )
    return Line(scenario, None if group is None else group[1])


def _split_options(line: str) -> list[str]:
    """Split ``prompt | option | option`` at the bars outside backticked spans.

    Backticks pair up in order (a last one without a partner opens no span), so one pass
    tells which bars are inside a span.
    """
    if "`" not in line:
        return line.split("|")  # no span to skip: every bar splits, without a loop per char
    paired = line.count("`") // 2 * 2
    parts: list[str] = []
    start = ticks = 0
    for index, char in enumerate(line):
        if char == "`":
            ticks += 1
        elif char == "|" and (ticks % 2 == 0 or ticks > paired):
            parts.append(line[start:index])
            start = index + 1
    return [*parts, line[start:]]


def _prompt(head: str, location: str, where: str) -> tuple[str, str | None]:
    """The prompt and the notes after a wholly backticked prompt."""
    notes = None
    if head.startswith("`"):
        closing = head.find("`", 1)
        if closing < 0:
            raise SpecError(
                "a backticked prompt needs its closing backtick", location=location, field=where
            )
        rest = head[closing + 1 :].strip()
        if "`" in rest and rest[:1] not in _NOTES_SEPARATORS:
            prompt = _unticked(head)  # spans inside the prompt, not a prompt and its notes
        else:
            prompt = head[1:closing].strip()
            notes = rest.lstrip(_NOTES_SEPARATORS).strip() or None
    else:
        prompt = _unticked(head)
    if not prompt:
        raise SpecError("has an option but no prompt", location=location, field=where)
    return prompt, notes


def _unticked(text: str) -> str:
    return _SPAN.sub(lambda found: found.group(0)[1:-1], text).strip()


def _option(text: str, location: str, where: str) -> tuple[str, list[str]]:
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or name not in OPTIONS:
        raise SpecError(
            f"unknown option {name!r}{suggestion(name, OPTIONS)}; options are "
            f"{', '.join(OPTIONS)} (name: value)",
            location=location,
            field=where,
        )
    items = [_unquoted(part) for part in value.split(",")] if name in _LISTS else [_unquoted(value)]
    items = [item for item in items if item]
    if not items and name not in _DESCRIPTIVE:
        raise SpecError(f"option {name!r} has no value", location=location, field=where)
    return name, items


def _unquoted(value: str) -> str:
    """``"30"`` and ``'30'`` are the text ``30``."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value
