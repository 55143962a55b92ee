"""Hostile strings in every field a report shows: nothing raw, nothing live, the data exact."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from assay_agents.agent import Action
from assay_agents.report import Report
from assay_agents.results import CaseSnapshot, Run, Vote, errored, scored
from hostile import CONTROLS, EVERYTHING, MARKUP, live_markup, outside_code, raw_controls

from .conftest import current_samples, make_run


def hostile_run(text: str, *, run_id: str = "run-h", sequence: int = 5) -> Run:
    """A run whose user-supplied strings (names, answers, reasons, errors, ...) all hold text."""
    samples = current_samples()
    samples[0] = replace(
        samples[0],
        case_id=f"case {text}",
        model=f"model {text}",
        answer=f"answer {text}",
        metrics=(
            scored("exact_match", "check", "content", 1.0, 0.0, f"reason {text}"),
            scored(f"custom {text}", "check", f"category {text}", 1.0, 0.0, None),
            replace(
                scored("tone", "judge", "quality", 0.5, 0.2, f"judge {text}"),
                votes=(Vote(score=0.2, reason=text),),
            ),
        ),
        actions=(
            Action(
                name=f"tool {text}",
                group=f"group {text}",
                arguments={"q": text},
                error=f"tool error {text}",
            ),
        ),
        metadata={"note": text},
    )
    samples[2] = replace(
        samples[2],
        error=f"agent error {text}",
        metrics=(errored("contains", "check", "content", 1.0, f"metric error {text}"),),
    )
    run = make_run(samples, run_id=run_id, sequence=sequence)
    cases = (
        CaseSnapshot(f"case {text}", f"name {text}", 0, "f" * 64, {"input": text}),
        *run.cases[1:],
    )
    return replace(
        run,
        suite=f"suite {text}",
        agent=f"agent {text}",
        cases=cases,
        metadata={"revision": text},
        suite_version=text,
    )


CORPUS = {**CONTROLS, **MARKUP, "everything": EVERYTHING}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_text_report_shows_no_control_character(name: str) -> None:
    run = hostile_run(CORPUS[name])
    report = Report(run, baseline=hostile_run(CORPUS[name], run_id="run-b", sequence=4))
    assert raw_controls(report.to_text()) == []


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_markdown_report_renders_user_text_as_text(name: str) -> None:
    run = hostile_run(CORPUS[name])
    markdown = Report(
        run, baseline=hostile_run(CORPUS[name], run_id="run-b", sequence=4)
    ).to_markdown()
    assert raw_controls(markdown) == []
    assert live_markup(markdown) == []


def test_the_markdown_report_keeps_every_table_row_whole() -> None:
    markdown = Report(hostile_run(EVERYTHING)).to_markdown()
    for line in outside_code(markdown).splitlines():
        if line.startswith("| "):
            assert line.endswith(" |"), line


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_json_report_escapes_controls_and_keeps_the_data(name: str) -> None:
    run = hostile_run(CORPUS[name])
    text = Report(run).to_json()
    assert raw_controls(text) == []
    data = json.loads(text)
    assert data["suite"] == run.suite
    assert data["samples"][0]["answer"] == run.samples[0].answer
    assert data["samples"][0]["metrics"][0]["reason"] == run.samples[0].metrics[0].reason


def test_what_was_there_is_still_shown() -> None:
    """Escaping shows a control, it does not drop it: the reader learns it was sent."""
    text = Report(hostile_run(CONTROLS["osc_title"] + CONTROLS["rlo"])).to_text()
    assert "\\x1b]0;pwned\\x07" in text
    assert "\\u202e" in text


# Characters some programs take for a line break: each is shown as its escape, never obeyed,
# so no surface breaks or cuts a line at them.
SEPARATORS = "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i\ufffej\uffffk\rl"
SHOWN = "a\\x0bb\\x0cc\\x1cd\\x1de\\x1ef\\x85g\\u2028h\\u2029i\\ufffej\\uffffk\\x0dl"


def _rendered(fmt: str) -> str:
    import html
    import xml.etree.ElementTree as ET

    from hostile import render_markdown

    written = Report(hostile_run(SEPARATORS)).render(fmt)
    if fmt == "markdown":
        return html.unescape(render_markdown(written))
    if fmt == "junit":
        root = ET.fromstring(written.encode("utf-8"))
        attributes = (v for element in root.iter() for v in element.attrib.values())
        return "\n".join([*root.itertext(), *attributes])
    return html.unescape(written) if fmt == "html" else written


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
@pytest.mark.parametrize("field", ["answer", "agent error", "reason", "case"])
def test_separators_are_shown_as_escapes_on_every_surface(fmt: str, field: str) -> None:
    shown = _rendered(fmt)
    if (fmt, field) != ("junit", "reason"):  # JUnit shows a passed sample's reasons nowhere
        assert f"{field} {SHOWN}" in shown
    assert raw_controls(shown) == []
