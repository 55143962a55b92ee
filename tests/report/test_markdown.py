"""The Markdown report: snapshots, table safety and the blocks it carries."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import pytest

from assay_agents.report import Report
from assay_agents.report.markdown import cell
from assay_agents.results import Run, scored

from .conftest import current_samples, make_run


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a | b", "a \\| b"),
        ("a\nb", "a b"),
        ("a\r\nb", "a b"),
        ("a\rb", "a\\\\x0db"),  # a lone carriage return is shown, not obeyed
        ("a\n\n\r\nb", "a b"),  # a run of breaks is one space
        ("a  \n  b", "a b"),  # with the blanks around it
        ("one|two\r\nthree|", "one\\|two three\\|"),
        ("~$0.02 and ~$0.01", "\\~\\$0.02 and \\~\\$0.01"),
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_cell(text: str, expected: str) -> None:
    assert cell(text) == expected


def test_completed_run_against_baseline(
    current_run: Run, baseline_run: Run, snapshot: Callable[[str, str], None]
) -> None:
    markdown = Report(current_run, baseline=baseline_run).to_markdown()
    snapshot("completed_with_baseline.md", markdown)


def test_running_run_without_baseline(
    running_run: Run, snapshot: Callable[[str, str], None]
) -> None:
    snapshot("running_without_baseline.md", Report(running_run).to_markdown())


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_every_table_row_keeps_its_columns(current_run: Run, baseline_run: Run) -> None:
    markdown = Report(current_run, baseline=baseline_run).to_markdown()
    tables = re.findall(r"(?:^\|.*\|$\n?)+", markdown, flags=re.MULTILINE)
    assert len(tables) >= 5
    for found in tables:
        counts = {_unescaped_pipes(row) for row in found.splitlines()}
        assert len(counts) == 1, found


def test_pipes_and_breaks_in_reasons_stay_in_their_cell() -> None:
    samples = current_samples()
    reason = "got 'a | b'\r\nthen\nmore\n\nlines"
    samples[1] = replace(
        samples[1], metrics=(scored("exact_match", "check", "content", 1.0, 0.0, reason),)
    )
    markdown = Report(make_run(samples, run_id="r", sequence=2)).to_markdown()
    row = "| exact_match | check | 0% | ≥ 100% | failed | got 'a \\| b' then more lines |"
    assert row in markdown.splitlines()


def test_answer_is_quoted_in_full(current_run: Run) -> None:
    samples = current_samples()
    samples[0] = replace(samples[0], answer="line one | with pipe\n\n" + "x" * 500)
    markdown = Report(make_run(samples, run_id="r", sequence=2)).to_markdown()
    assert "> line one \\| with pipe\n>\n> " + "x" * 500 + "\n" in markdown


def test_actions_error_and_metadata(current_run: Run) -> None:
    markdown = Report(current_run).to_markdown()
    assert '```\norders.lookup_order({"id": 42})\n```' in markdown
    assert "**Actions:** _not instrumented_" in markdown
    assert "**Agent error:**\n\n```\nTimeoutError: no answer within 30 s\n```" in markdown
    assert (
        "<details><summary>Sample metadata</summary>\n\n```json\n"
        '{"trace_id": "trace-0001"}\n```\n\n</details>'
    ) in markdown


def test_fence_outlasts_backticks_in_the_error() -> None:
    samples = current_samples()
    samples[2] = replace(samples[2], error="boom ```json``` here")
    markdown = Report(make_run(samples, run_id="r", sequence=2)).to_markdown()
    assert "````\nboom ```json``` here\n````" in markdown


def test_figures_use_the_markdown_fraction(current_run: Run, baseline_run: Run) -> None:
    markdown = Report(current_run, baseline=baseline_run).to_markdown()
    assert "- **Pass rate:** 1/3 (33%)" in markdown
    assert "- **Fingerprint:** `3f9a1c2b7d4e`" in markdown
    assert "**3 of 3 paired item(s) compared, 0 excluded (0% of the paired corpus)**" in markdown
    assert "**Pass rate over the compared items: 3/3 (100%) → 1/3 (33%)" in markdown
    assert "Baseline `run-0001`: 4 regression(s) (4 signal), 0 improvement(s)" in markdown
    assert "### Judge criteria" in markdown
    assert "No compatible baseline." in Report(current_run).to_markdown()
