"""visible(): the one gate for untrusted text on every surface."""

from __future__ import annotations

import json

import pytest

from assay.text import json_visible, one_line, visible
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
        ("ünïcödé · 日本", "ünïcödé · 日本"),
    ],
)
def test_visible_escapes_what_a_terminal_would_act_on(text: str, shown: str) -> None:
    assert visible(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\r\nb\rc\nd", "a\nb\nc\nd"),
        ("a\x0bb\x0cc\x85d\u2028e\u2029f", "a\nb\nc\nd\ne\nf"),
        ("one\x1b[2J\ntwo", "one\\x1b[2J\ntwo"),
    ],
)
def test_visible_with_lines_keeps_every_line_break_as_a_newline(text: str, shown: str) -> None:
    assert visible(text, lines=True) == shown


def test_one_line_folds_breaks_and_escapes_the_rest() -> None:
    assert one_line("a  \r\n\n  b\x1bc") == "a b\\x1bc"


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
