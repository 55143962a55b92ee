"""Reading untrusted text is linear: no pattern backtracks, no line pairs every bar with
every span.

Work is measured without a clock, by two deterministic counters:

* the Python lines executed while a paste is read (``sys.settrace``), at n and 2n;
* the shape of every regular expression the loaders apply, read from its parse tree: no
  unbounded repetition inside another, none directly after another that can match the same
  characters, and none an unanchored search restarts inside of.

``bench/hostile_files.py`` times a 1 MB paste of each shape.
"""

from __future__ import annotations

import ast
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from types import FrameType
from typing import Any

import pytest

import assay_agents as assay
from assay_agents.errors import SpecError
from assay_agents.load import ScenarioParser

LOAD = Path(assay.__file__).parent / "load"

#: Adversarial pastes, each a function of its size n.
SHAPES: dict[str, Callable[[int], str]] = {
    "bold heading of spaces": lambda n: "**a" + " " * n + "x",
    "bold heading of spaces and colons": lambda n: "**a" + " :" * n + "**x",
    "bars and backtick spans": lambda n: "prompt | tags: " + "`a|b`, " * n,
    "bars only": lambda n: "prompt " + "| tags: a " * n,
    "backticks only": lambda n: "`" * n + "x",
    "unclosed spans and bars": lambda n: "prompt " + "`|" * n,
    "label heading": lambda n: "a" * n + "::",
    "list marker digits": lambda n: "1" * n + "x",
    "rule-like": lambda n: "-" * n + "x",
    "hashes": lambda n: "#" * n + "1",
    "many lines under headings": lambda n: "# g\nq | tags: a\n" * (n // 16),
    "document-like": lambda n: "suite" + " " * n + "x",
    "long heading over many keyless lines": lambda n: "# " + "a" * n + "\n" + "x\n" * (n // 2),
}


def traced_lines(work: Callable[[], Any]) -> int:
    """How many Python lines ``work`` executes (any refusal counts as done)."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    except SpecError:
        pass
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("shape", SHAPES)
def test_reading_a_paste_does_work_linear_in_its_size(shape: str) -> None:
    def lines_for(n: int) -> int:
        return traced_lines(lambda: ScenarioParser.scenarios(SHAPES[shape](n)))

    small, large = lines_for(4_000), lines_for(8_000)
    # Twice the text, at most about twice the work (a quadratic reader does four times).
    assert large <= 2.2 * small + 200, (small, large)


def _long_heading(n: int) -> str:
    """One heading of n letters over n/2 prompts without a key."""
    return "# " + "a" * n + "\n" + "x\n" * (n // 2)


def _key_and_peak(text: str) -> tuple[int, int]:
    """The characters of every made-up key and group, and the most memory reading held."""
    tracemalloc.start()
    try:
        scenarios = ScenarioParser.scenarios(text, key_prefix="p" * 200)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return sum(len(s.key) + len(s.group or "") for s in scenarios), peak


def test_keys_made_under_a_long_heading_take_room_linear_in_the_paste() -> None:
    # A key made of the whole heading per prompt was heading x prompts: a 40 KB file of
    # one 20,000-letter heading and 10,000 prompts held 851 MB.
    small_keys, small_peak = _key_and_peak(_long_heading(8_000))
    large_keys, large_peak = _key_and_peak(_long_heading(16_000))
    assert large_keys <= 2.2 * small_keys, (small_keys, large_keys)
    assert large_peak <= 2.5 * small_peak, (small_peak, large_peak)


def test_made_up_keys_and_groups_have_a_bounded_length_and_stay_unique() -> None:
    shared = "b" * 300
    text = f"# {shared}1\nx\nx\n# {shared}2\ny\n# {'c' * 80}\nz\nz | key: kept\n"
    scenarios = ScenarioParser.scenarios(text, key_prefix="Team " * 40)
    keys = [scenario.key for scenario in scenarios]
    assert all(len(key) <= 64 for key in keys[:4]), keys
    assert keys[4] == "kept"
    assert len({key.casefold() for key in keys}) == len(keys)
    groups = [scenario.group or "" for scenario in scenarios]
    assert all(len(group) <= 64 for group in groups), groups
    # Headings that differ only past the cap still make different groups.
    assert groups[0] == groups[1] != groups[2]
    assert groups[3].startswith("c" * 40)


# -- the shapes of the patterns --------------------------------------------------------------

_PROBES = [chr(code) for code in range(256)] + ["•", "\u2028", "中", "é"]
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT)
_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    sre.CATEGORY_DIGIT: str.isdigit,
    sre.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre.CATEGORY_SPACE: str.isspace,
    sre.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def _chars(op: Any, av: Any) -> frozenset[str] | None:
    """The characters a one-character item matches (``None``: not one character)."""
    if op is sre.LITERAL:
        return frozenset({chr(av)})
    if op is sre.NOT_LITERAL:
        return frozenset(c for c in _PROBES if c != chr(av))
    if op is sre.ANY:
        return frozenset(c for c in _PROBES if c != "\n")
    if op is sre.IN:
        return frozenset(c for c in _PROBES if _in_set(av, c))
    return None


def _in_set(items: Any, char: str) -> bool:
    negate, found = False, False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            found |= char == chr(av)
        elif op is sre.RANGE:
            found |= av[0] <= ord(char) <= av[1]
        elif op is sre.CATEGORY:
            found |= _CATEGORIES[av](char)
    return found != negate


def _everything() -> frozenset[str]:
    return frozenset(_PROBES)


def _first(item: tuple[Any, Any]) -> frozenset[str]:
    """The characters an item may start with (every probe when it cannot tell)."""
    op, av = item
    single = _chars(op, av)
    if single is not None:
        return single
    if op in _REPEATS:
        return _first_of(list(av[2]))
    if op is sre.SUBPATTERN:
        return _first_of(list(av[3]))
    if op is sre.BRANCH:
        return frozenset().union(*(_first_of(list(branch)) for branch in av[1]))
    return _everything()


def _first_of(sequence: list[Any]) -> frozenset[str]:
    return _first(sequence[0]) if sequence else _everything()


def _unbounded(item: tuple[Any, Any]) -> bool:
    op, av = item
    return op in _REPEATS and av[1] == sre.MAXREPEAT


def _optional(item: tuple[Any, Any]) -> bool:
    op, av = item
    return (op in _REPEATS and av[0] == 0) or op is sre.AT


def _sequences(items: list[Any]) -> Iterator[list[Any]]:
    """Every sequence in a parse tree: the top one and those inside groups and branches."""
    yield items
    for op, av in items:
        if op in _REPEATS:
            yield from _sequences(list(av[2]))
        elif op is sre.SUBPATTERN:
            yield from _sequences(list(av[3]))
        elif op is sre.BRANCH:
            for branch in av[1]:
                yield from _sequences(list(branch))


def _repeats_inside(items: list[Any]) -> bool:
    return any(_unbounded(item) for sequence in _sequences(items) for item in sequence)


def super_linear_shapes(pattern: str) -> list[str]:
    """Why a pattern may backtrack super-linearly (empty: it cannot)."""
    tree = list(sre_parse.parse(pattern))
    found: list[str] = []
    for sequence in _sequences(tree):
        for index, item in enumerate(sequence):
            if _unbounded(item) and _repeats_inside(list(item[1][2])):
                found.append("an unbounded repetition inside another")
            if not _unbounded(item):
                continue
            body = _first(item)
            for later in sequence[index + 1 :]:
                if _unbounded(later) and body & _first(later):
                    found.append("two unbounded repetitions of common characters in a row")
                if not _optional(later):
                    break
    for alternative in _alternatives(tree):
        anchored = bool(alternative) and alternative[0][0] is sre.AT
        if not anchored and _restarts_inside_a_run(alternative):
            found.append("an unanchored search that restarts inside a repetition it scanned")
    return found


def _alternatives(tree: list[Any]) -> list[list[Any]]:
    """The top-level alternatives of a pattern (itself, when it has none)."""
    if len(tree) == 1 and tree[0][0] is sre.BRANCH:
        return [list(branch) for branch in tree[0][1][1]]
    return [tree]


def _restarts_inside_a_run(tree: list[Any]) -> bool:
    """A search from each start may rescan the same run: a leading repetition with
    something after it that can fail, or a first character a later repetition consumes
    (so that a start lies inside what an earlier attempt scanned)."""
    for index, item in enumerate(tree):
        if _unbounded(item):
            return any(not _optional(later) for later in tree[index + 1 :])
        if not _optional(item):
            break
    start = next((index for index, item in enumerate(tree) if not _optional(item)), None)
    if start is None:
        return False
    head, rest = _first(tree[start]), tree[start + 1 :]
    # A repetition that ends the pattern cannot fail after it: each attempt succeeds.
    return any(_unbounded(item) and head & _consumed(item) for item in rest[:-1])


def _consumed(item: tuple[Any, Any]) -> frozenset[str]:
    """Every character an item may consume, anywhere in it."""
    op, av = item
    single = _chars(op, av)
    if single is not None:
        return single
    if op is sre.AT:
        return frozenset()
    inner = (
        [list(av[2])]
        if op in _REPEATS
        else [list(av[3])]
        if op is sre.SUBPATTERN
        else [list(branch) for branch in av[1]]
        if op is sre.BRANCH
        else None
    )
    if inner is None:
        return _everything()
    return frozenset().union(*(_consumed(part) for sequence in inner for part in sequence))


def load_patterns() -> Iterator[tuple[str, str]]:
    """Every literal pattern the loaders compile or apply, with where it is."""
    for path in sorted(LOAD.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            is_re = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "re"
            )
            if (
                is_re
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                yield f"{path.name}:{node.lineno}", node.args[0].value
            for keyword in node.keywords:
                if keyword.arg == "pattern" and isinstance(keyword.value, ast.Constant):
                    yield f"{path.name}:{node.lineno}", str(keyword.value.value)


def test_the_analysis_finds_the_shapes_that_backtrack() -> None:
    # The pattern that read a bold heading in cubic time, and the classic ones.
    assert super_linear_shapes(r"^\*\*([^*]+?)\s*:?\s*\*\*\s*:?$")
    assert super_linear_shapes(r"^(a+)+$")
    assert super_linear_shapes(r"[ \t]*(?:\r\n|\n)+[ \t]*")
    assert super_linear_shapes(r'"(?:[^"\\]|\\.)*"')
    assert super_linear_shapes(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
    assert not super_linear_shapes(r"`[^`\n]*`")
    assert not super_linear_shapes(r"^(?:[-*•]|\d+[.)])\s+")


def test_every_pattern_the_loaders_apply_to_untrusted_text_is_linear() -> None:
    patterns = list(load_patterns())
    assert len(patterns) >= 6  # the walk found the loaders' patterns
    offending = {
        where: shapes for where, pattern in patterns if (shapes := super_linear_shapes(pattern))
    }
    assert offending == {}


def test_text_shown_on_one_line_is_folded_in_linear_work() -> None:
    # Answers and errors are folded to one line for tables: a long run of blanks without a
    # line break once made that quadratic (40,000 spaces: 37 s).
    from assay_agents import text as _text

    patterns = [value.pattern for value in vars(_text).values() if hasattr(value, "pattern")]
    assert len(patterns) >= 4
    offending = {
        pattern: shapes for pattern in patterns if (shapes := super_linear_shapes(pattern))
    }
    assert offending == {}
    assert _text.one_line("a \t\n \r\n b\n\n  \n c  ") == "a  b  c  "
    assert _text.one_line("a \u2028 b") == "a \\u2028 b"  # not a newline: shown, not folded
    assert _text.one_line("  lead\n") == "  lead "
