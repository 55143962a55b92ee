"""The JUnit XML report: valid for Jenkins and GitLab, counts from the run, every string text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
import xmlschema

from assay_agents.report import Report
from assay_agents.results import Run, SampleResult, SampleStatus, scored, summarise
from assay_agents.results.fault import Fault
from assay_agents.results.tracebacks import TRACEBACK_KEY
from hostile import CONTROLS, EVERYTHING, MARKUP, raw_controls

from .conftest import current_samples, make_run
from .test_hostile_text import hostile_run

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "fixtures" / "jenkins-junit.xsd")

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "support.py", line 12, in agent\n'
    "    raise TimeoutError('no answer within 30 s')\n"
    "TimeoutError: no answer within 30 s"
)


def junit(run: Run, **options: object) -> ET.Element:
    """Render, validate against the schema, and parse."""
    written = Report(run, **options).render("junit")  # type: ignore[arg-type]
    SCHEMA.validate(written)
    return ET.fromstring(written.encode("utf-8"))


def case_of(root: ET.Element, model: str, case_id: str) -> ET.Element:
    suite = next(s for s in root.iter("testsuite") if s.get("name") == model)
    return next(c for c in suite.iter("testcase") if c.get("name") == case_id)


def with_traceback(samples: list[SampleResult]) -> list[SampleResult]:
    errored = samples[2]
    samples[2] = replace(errored, metadata={**errored.metadata, TRACEBACK_KEY: TRACEBACK})
    return samples


def test_a_testsuite_per_model_and_a_testcase_per_case(current_run: Run, baseline_run: Run) -> None:
    root = junit(current_run, baseline=baseline_run)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "openai/gpt-4o-mini"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["order-status", "refund", "escalation"]
    assert {c.get("classname") for c in cases} == {"Customer support"}
    assert cases[0].find("failure") is None and cases[0].find("error") is None
    assert cases[1].find("failure") is not None
    assert cases[2].find("error") is not None


def test_counts_and_times_equal_the_stored_summary(current_run: Run) -> None:
    root = junit(current_run)
    (suite,) = root.findall("testsuite")
    stored = current_run.summary
    assert stored is not None
    tally = stored.by_model["openai/gpt-4o-mini"]
    assert int(suite.get("tests", "")) == tally.cases == 3
    assert int(suite.get("failures", "")) == tally.failed == 1
    assert int(suite.get("errors", "")) == tally.errors == 1
    assert int(suite.get("skipped", "")) == tally.not_evaluated == 0
    assert tally.latency_avg_ms is not None
    assert float(suite.get("time", "")) == pytest.approx(tally.latency_avg_ms * 3 / 1000)
    times = [float(c.get("time", "")) for c in suite.iter("testcase")]
    assert times == [pytest.approx(0.82), pytest.approx(1.48), pytest.approx(30.0)]
    for name in ("tests", "failures", "errors", "time"):
        assert root.get(name) == suite.get(name)


def test_a_failure_carries_the_failed_metrics_their_reasons_and_the_fault() -> None:
    samples = current_samples()
    samples[1] = replace(
        samples[1], fault=Fault.MISSING_CONTENT, recommendation="Answer from the refund policy."
    )
    failure = case_of(
        junit(make_run(samples, run_id="r", sequence=1)), "openai/gpt-4o-mini", "refund"
    ).find("failure")
    assert failure is not None
    assert failure.get("type") == "missing_content"
    assert "exact_match" in (failure.get("message") or "")
    text = failure.text or ""
    assert 'expected "Refund issued."' in text
    assert "actions" in text and "unexpected orders.lookup_order" in text
    assert "missing_content" in text and "Answer from the refund policy." in text


def test_an_agent_error_carries_its_traceback() -> None:
    run = make_run(with_traceback(current_samples()), run_id="r", sequence=1)
    error = case_of(junit(run), "openai/gpt-4o-mini", "escalation").find("error")
    assert error is not None
    assert error.get("message") == "TimeoutError: no answer within 30 s"
    assert TRACEBACK in (error.text or "")
    assert "the agent gave no answer" in (error.text or "")


def test_an_error_message_is_the_whole_first_line_with_its_separators_shown() -> None:
    samples = current_samples()
    samples[2] = replace(samples[2], error="ValueError: a\x0bb\x0cc\x1cd\x85e\u2028f\nsecond")
    error = case_of(
        junit(make_run(samples, run_id="r", sequence=1)), "openai/gpt-4o-mini", "escalation"
    ).find("error")
    assert error is not None
    assert error.get("message") == "ValueError: a\\x0bb\\x0cc\\x1cd\\x85e\\u2028f"
    assert "a\\x0bb\\x0cc\\x1cd\\x85e\\u2028f\nsecond" in (error.text or "")


def test_a_case_nothing_evaluated_is_skipped() -> None:
    samples = current_samples()
    samples[0] = replace(samples[0], metrics=(), status=SampleStatus.NOT_EVALUATED)
    run = make_run(samples, run_id="r", sequence=1)
    root = junit(run)
    skipped = case_of(root, "openai/gpt-4o-mini", "order-status").find("skipped")
    assert skipped is not None and "no metric was calculated" in (skipped.get("message") or "")
    assert root.find("testsuite").get("skipped") == "1"  # type: ignore[union-attr]


def test_several_samples_make_one_testcase_that_fails_when_any_fails() -> None:
    passing = current_samples()[0]
    failing = replace(
        passing,
        sample=1,
        status=SampleStatus.FAILED,
        metrics=(scored("exact_match", "check", "content", 1.0, 0.0, "said nothing useful"),),
    )
    run = make_run([passing, failing], run_id="r", sequence=1)
    root = junit(run)
    case = case_of(root, "openai/gpt-4o-mini", "order-status")
    failure = case.find("failure")
    assert failure is not None and "1 of 2 samples failed" in (failure.get("message") or "")
    assert "sample 1" in (failure.text or "") and "sample 0 " not in (failure.text or "")
    names = [p.get("name") for p in root.iter("property")]
    assert "order-status sample 0" in names and "order-status sample 1" in names


def test_several_models_make_several_testsuites() -> None:
    samples = current_samples()
    other = [replace(s, model="anthropic/claude-haiku") for s in current_samples()]
    other[1] = replace(other[1], status=SampleStatus.PASSED, metrics=samples[0].metrics)
    run = make_run([*samples, *other], run_id="r", sequence=1)
    root = junit(run)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["openai/gpt-4o-mini", "anthropic/claude-haiku"]
    summary = summarise(run.samples)
    for suite in suites:
        tally = summary.by_model[suite.get("name", "")]
        assert int(suite.get("tests", "")) == tally.cases
        assert int(suite.get("failures", "")) == tally.failed
        assert int(suite.get("errors", "")) == tally.errors
    assert root.get("tests") == "6" and root.get("failures") == "1" and root.get("errors") == "2"


def test_the_samples_are_properties_beside_the_run(current_run: Run) -> None:
    root = junit(current_run)
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["assay.run"] == "run-0002"
    assert properties["assay.suite"] == "Customer support"
    assert properties["assay.agent"] == "SupportAgent"
    refund = properties["refund sample 0"] or ""
    assert refund.startswith("failed") and "1.48 s" in refund and "~$0.0243" in refund


CORPUS = {
    **CONTROLS,
    **MARKUP,
    "everything": EVERYTHING,
    "nul": "a\x00b",
    "surrogate": "half \ud800 pair",
    "not_characters": "\ufffe\uffff",
    "xml": "</failure><![CDATA[x]]>&amp;<!DOCTYPE x [<!ENTITY e 'x'>]>",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hostile_text_is_shown_as_text_and_the_file_still_parses(name: str) -> None:
    text = CORPUS[name]
    run = hostile_run(text)
    samples = with_traceback(list(run.samples))
    run = replace(run, samples=tuple(samples))
    written = Report(run).render("junit")
    assert raw_controls(written) == []
    SCHEMA.validate(written)
    root = ET.fromstring(written.encode("utf-8"))
    shown = "".join(root.itertext()) + " ".join(
        value for element in root.iter() for value in element.attrib.values()
    )
    assert raw_controls(shown) == []
    for char in "\x00\x1b\x07\x08\x9b\u202e\ud800\ufffe":
        if char in text:
            assert char not in shown
            assert f"\\x{ord(char):02x}" in shown or f"\\u{ord(char):04x}" in shown
    if name == "xml":
        assert "</failure><![CDATA[x]]>" in shown  # the markup survives as characters
    suite_names = {c.get("classname") for c in root.iter("testcase")}
    assert len(suite_names) == 1 and "suite" in next(iter(suite_names))  # type: ignore[operator]


def test_a_megabyte_answer_is_kept_whole() -> None:
    samples = current_samples()
    answer = "x" * 1_000_000 + "\x1b[2J end"
    samples[0] = replace(samples[0], answer=answer)
    root = junit(make_run(samples, run_id="r", sequence=1))
    out = case_of(root, "openai/gpt-4o-mini", "order-status").find("system-out")
    assert out is not None and "x" * 1_000_000 + "\\x1b[2J end" in (out.text or "")


def test_xml_is_chosen_by_extension(tmp_path: Path, current_run: Run) -> None:
    written = Report(current_run).export(tmp_path / "results.xml")
    content = written.read_text(encoding="utf-8")
    assert content.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')
    SCHEMA.validate(str(written))


def test_a_run_without_models_is_one_testsuite_named_after_the_suite() -> None:
    samples = [replace(s, model=None) for s in current_samples()]
    root = junit(make_run(samples, run_id="r", sequence=1))
    assert [s.get("name") for s in root.findall("testsuite")] == ["Customer support"]
    names = {p.get("name") for p in root.iter("property")}
    assert "assay.model" not in names


def test_a_run_without_samples_is_an_empty_document() -> None:
    root = junit(make_run([], run_id="r", sequence=1))
    assert root.findall("testsuite") == [] and root.get("tests") == "0"
