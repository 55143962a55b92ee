"""Markdown escaping: user strings render as the text they are."""

from __future__ import annotations

import html
import re

import pytest

from assay_agents.report._escaping import md_cell, md_code, md_fence, md_quote
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
        ("user@evil.example", "user@&#8203;evil.example"),
        ("cc @octocat, @a-b", "cc @&#8203;octocat, @&#8203;a-b"),
        ("see #1 and GH-22, gh-3", "see #&#8203;1 and GH-&#8203;22, gh-&#8203;3"),
        ("mailto:a@e.example", "mailto\\:a@&#8203;e.example"),
        ("XMPP:u@e.example", "XMPP\\:u@&#8203;e.example"),
        ("a @ b, #x, c#1, 10:30", "a @ b, #x, c#1, 10:30"),  # nothing GitHub would link
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


# What GitHub links or notifies in a comment or a job summary, beyond CommonMark: an email
# address, a mailto:/xmpp: link, a mention, an issue or pull-request reference.
GITHUB_LINKS = "user@evil.example mailto:a@evil.example xmpp:u@evil.example @octocat #1 GH-1"


def test_github_links_and_mentions_render_as_the_text_written() -> None:
    for markdown in (md_quote(GITHUB_LINKS), f"| h |\n| --- |\n| {md_cell(GITHUB_LINKS)} |"):
        assert live_markup(markdown) == [], markdown
        shown = html.unescape(re.sub(r"<[^>]+>", "", render_markdown(markdown)))
        # Only a zero-width space after "@", "#" or "GH-" tells it from the original.
        assert GITHUB_LINKS in shown.replace("\u200b", "")
        assert "@octocat" not in shown and "#1" not in shown and "user@evil" not in shown
