"""response_present, tools_succeeded, and the start of the answer in failing content reasons."""

from __future__ import annotations

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.agent import Action
from assay_agents.checks import CheckError
from assay_agents.results import SampleStatus


@pytest.mark.parametrize(
    ("answer", "score", "reason"),
    [
        ("Order 7 shipped.", 1.0, "answered (16 characters)"),
        ("   \n", 0.0, "the agent gave an empty answer"),
        (None, 0.0, "the agent gave no answer"),
        # Invisible characters say nothing: a zero-width space, a joiner, a BOM, bidi marks.
        ("\u200b", 0.0, "the agent gave an empty answer"),
        (" \u200d\ufeff\u200e\n\u2060 ", 0.0, "the agent gave an empty answer"),
        ("\u200bOK", 1.0, "answered (3 characters)"),
    ],
)
def test_response_present(context, answer, score, reason):
    verdict = checks.response_present().evaluate(context(answer))
    assert (verdict.score, verdict.reason) == (score, reason)


NOT_FOUND = Action("lookup_order", {"id": 9}, result={"error": None, "message": "not found"})
DOWN = Action("lookup_order", {"id": 7}, result={"error": "order service down"})
RAISED = Action("issue_refund", {"id": 7}, error="TimeoutError: \x1b[2Jrefunds")


def test_tools_succeeded_reads_the_one_tool_error_rule(context):
    check = checks.tools_succeeded()
    assert check.evaluate(context("x", actions=[NOT_FOUND])).score == 1.0
    assert check.evaluate(context("x", actions=[])).reason == "no tool was called"
    failed = check.evaluate(context("x", actions=[NOT_FOUND, DOWN, RAISED]))
    assert failed.score == 0.0
    assert failed.reason == (
        "2 of 3 tool call(s) failed: lookup_order, issue_refund "
        "(lookup_order: “order service down”)"
    )
    raised = check.evaluate(context("x", actions=[RAISED]))
    assert "\x1b" not in raised.reason and "\\x1b[2J" in raised.reason


def test_tools_succeeded_errors_when_actions_were_not_instrumented(context):
    with pytest.raises(CheckError, match="actions=None"):
        checks.tools_succeeded().evaluate(context("x", actions=None))


def test_the_new_checks_are_values_with_portable_settings():
    assert checks.response_present().settings() == {"type": "ResponsePresent"}
    assert checks.tools_succeeded(name="tools_ok").settings() == {"type": "ToolsSucceeded"}
    assert (checks.response_present().name, checks.tools_succeeded().name) == (
        "response_present",
        "tools_succeeded",
    )
    assert checks.response_present().category == "content"
    assert checks.tools_succeeded().category == "actions"


def fingerprint(*made):
    suite = assay.Suite("S", agent=lambda text, ctx: "")
    suite.case("q", id="q", checks=list(made))
    return suite.plan().fingerprint


def test_the_new_checks_change_a_cases_fingerprint():
    plain = fingerprint(checks.contains("x"))
    assert fingerprint(checks.contains("x"), checks.response_present()) != plain
    assert fingerprint(checks.contains("x"), checks.tools_succeeded()) != plain


def test_a_run_fails_on_a_failed_tool_call_and_passes_on_a_correct_not_found(store):
    def agent(text, ctx):
        return assay.Outcome(
            answer="No such order." if ctx.case.id == "ok" else "Sorry.",
            actions=[NOT_FOUND if ctx.case.id == "ok" else DOWN],
        )

    suite = assay.Suite(
        "S", agent=agent, checks=[checks.response_present(), checks.tools_succeeded()]
    )
    suite.case("Where is order 9?", id="ok")
    suite.case("Where is order 7?", id="down")
    run = assay.run(suite, db=store, progress=False)
    status = {s.case_id: s.status for s in run.samples}
    assert status == {"ok": SampleStatus.PASSED, "down": SampleStatus.FAILED}
    down = next(s for s in run.samples if s.case_id == "down")
    assert down.fault == "tool_error" and down.recommendation.startswith("Fix lookup_order")


LONG = "Two weeks, I think.\x1b]0;pwned\x07\u202e and then " + "more words " * 20


@pytest.mark.parametrize(
    "check",
    [
        checks.contains("30 days"),
        checks.not_contains("Two weeks"),
        checks.regex(r"\d+ days"),
        checks.valid_json(),
        checks.json_schema({"type": "object"}),
        checks.min_length(500),
    ],
)
def test_a_failing_content_reason_shows_the_start_of_the_answer_made_safe(context, check):
    verdict = check.evaluate(context(LONG))
    assert verdict.score < 1.0
    head, begins = verdict.reason.split("; the answer begins “", 1)
    assert head and begins.endswith("…”")
    assert begins.startswith("Two weeks, I think.\\x1b]0;pwned\\x07\\u202e and then more")
    assert not any(char in verdict.reason for char in "\x1b\x07\u202e\n")
    assert len(begins) <= 80 + 3 * 5 + 2  # 80 characters, three of them written as escapes


def test_a_passing_content_reason_stays_short(context):
    assert checks.contains("Two").evaluate(context(LONG)).reason == "contains 'Two'"
    relaxed = checks.min_length(500, threshold=0.1).evaluate(context(LONG))
    assert "the answer begins" not in relaxed.reason
