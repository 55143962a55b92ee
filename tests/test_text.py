"""visible(): the one gate for untrusted text on every surface."""

from __future__ import annotations

import json

import pytest

from assay_agents.text import json_visible, lines_of, one_line, visible
from hostile import CONTROLS, raw_controls


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\x08b", "a\\x08b"),
        ("\x9b31m", "\\x9b31m"),
        ("a\x7fb", "a\\x7fb"),
        ("invoice\u202efdp.exe", "invoice\\u202efdp.exe"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),
        ("a\tb", "a\tb"),
        ("a\nb", "a\\x0ab"),
        ("a\x0bb\x0cc", "a\\x0bb\\x0cc"),
        ("\x1c\x1d\x1e", "\\x1c\\x1d\\x1e"),
        ("a\x85b", "a\\x85b"),
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
        ("a\ufffeb\uffffc", "a\\ufffeb\\uffffc"),
        ("\ufdd0\ufdef", "\\ufdd0\\ufdef"),
        ("a\U0001fffeb\U0010ffff", "a\\U0001fffeb\\U0010ffff"),
        ("emoji \U0001f600 ok", "emoji \U0001f600 ok"),
        ("ünïcödé · 日本", "ünïcödé · 日本"),
    ],
)
def test_visible_escapes_what_a_terminal_would_act_on(text: str, shown: str) -> None:
    assert visible(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\r\nb\nc\td", "a\nb\nc\td"),
        ("one\x1b[2J\ntwo", "one\\x1b[2J\ntwo"),
        # Only LF and CRLF break a line: every other separator is shown as what it is.
        ("a\rb", "a\\x0db"),
        (
            "a\x0bb\x0cc\x85d\u2028e\u2029f\x1cg\x1dh\x1ei",
            "a\\x0bb\\x0cc\\x85d\\u2028e\\u2029f\\x1cg\\x1dh\\x1ei",
        ),
        ("a\ufffe\nb", "a\\ufffe\nb"),
    ],
)
def test_visible_with_lines_keeps_only_newlines_as_line_breaks(text: str, shown: str) -> None:
    assert visible(text, lines=True) == shown


def test_one_line_folds_breaks_and_escapes_the_rest() -> None:
    assert one_line("a  \r\n\n  b\x1bc") == "a b\\x1bc"


def test_one_line_shows_separators_that_are_not_newlines() -> None:
    assert one_line("a\x0bb \x0c c\u2028d\x85e") == "a\\x0bb \\x0c c\\u2028d\\x85e"


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("one", ["one"]),
        ("one\ntwo\n", ["one", "two"]),
        ("one\r\ntwo", ["one", "two"]),
        ("a\x0bb\x0cc\u2028d\x85e\x1cf\rg", ["a\x0bb\x0cc\u2028d\x85e\x1cf\rg"]),
        ("a\n\nb", ["a", "", "b"]),
    ],
)
def test_lines_of_splits_only_at_newlines(text: str, lines: list[str]) -> None:
    assert lines_of(text) == lines


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_nothing_in_the_corpus_survives(name: str) -> None:
    assert raw_controls(visible(CONTROLS[name])) == []
    assert raw_controls(visible(CONTROLS[name], lines=True)) == []
    assert raw_controls(one_line(CONTROLS[name])) == []


def test_json_visible_keeps_the_data_and_hides_the_controls() -> None:
    value = {"text": "".join(CONTROLS.values())}
    text = json_visible(json.dumps(value, ensure_ascii=False))
    assert raw_controls(text) == []
    assert json.loads(text) == value


def test_json_visible_escapes_separators_and_noncharacters_as_data() -> None:
    value = {"text": "a\u2028b\u2029c\ufffed\uffffe\ufdd0f\U0001fffeg\U0001f600"}
    text = json_visible(json.dumps(value, ensure_ascii=False))
    assert "\\u2028" in text and "\\ufffe" in text and "\\ud83f\\udffe" in text
    assert "\U0001f600" in text  # an ordinary character outside the BMP stays as it is
    assert raw_controls(text) == []
    assert json.loads(text) == value
