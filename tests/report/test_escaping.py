"""Markdown escaping: user strings render as the text they are."""

from __future__ import annotations

import pytest

from assay.report._escaping import md_cell, md_code, md_fence, md_quote
from hostile import MARKUP, live_markup, render_markdown


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("![x](https://e.example/p.png)", "\\!\\[x\\](https\\://e.example/p.png)"),
        ("[a](javascript:alert(1))", "\\[a\\](javascript:alert(1))"),
        ("a | b", "a \\| b"),
        ("see www.e.example", "see www\\.e.example"),
        ("exact_match _em_ *b*", "exact_match \\_em\\_ \\*b\\*"),
        ("~$0.02", "\\~\\$0.02"),
        ("`code`", "\\`code\\`"),
        ("# not a heading", "# not a heading"),  # a cell is never at the start of a line
        ("a &amp; b", "a &amp;amp; b"),
    ],
)
def test_cell(text: str, escaped: str) -> None:
    assert md_cell(text) == escaped


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("# pwned", "> \\# pwned"),
        ("- item\n+ item\n1. item\n2) item", "> \\- item\n> \\+ item\n> 1\\. item\n> 2\\) item"),
        ("title\n===", "> title\n> \\==="),
        ("    indented <b>", "> indented &lt;b&gt;"),
        ("> nested", "> &gt; nested"),
    ],
)
def test_quote_escapes_what_starts_a_block(text: str, quoted: str) -> None:
    assert md_quote(text) == quoted


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_every_hostile_string_renders_as_its_own_text(name: str) -> None:
    text = MARKUP[name]
    for markdown in (
        md_quote(text),
        f"| h |\n| --- |\n| {md_cell(text)} |",
        md_fence(text),
        f"x {md_code(text)} y",
    ):
        assert live_markup(markdown) == [], markdown


def test_a_fence_outlasts_any_backtick_run_inside() -> None:
    text = "before\n``````\n<script>alert(1)</script>\n``````\nafter"
    html = render_markdown(md_fence(text))
    assert html.count("<pre>") == 1 and "&lt;script&gt;" in html
    assert "after" in html.split("</pre>")[0]


def test_a_code_span_keeps_backticks_inside() -> None:
    html = render_markdown(md_code("a``b"))
    assert "<code>a``b</code>" in html
