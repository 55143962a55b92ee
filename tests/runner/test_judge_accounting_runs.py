"""Judged runs keep honest accounts: attempts, unmeasured deterministic rates, criterion counts."""

import json

from rich.console import Console

import assay_agents as assay
from assay_agents import judges
from assay_agents.cli._render import render_run
from assay_agents.report import Report
from assay_agents.report.prose import verdict_lines
from assay_agents.testing import ScriptedServer, failure, slow, verdict

GRADED = {"semantic_accuracy": 0.5}


def judge_only(judge, *, cases=("window",)):
    suite = assay.Suite("Judge only", agent=lambda text, ctx: "Thirty days.", judge=judge)
    for name in cases:
        suite.case(f"Question {name}?", id=name, expected="30 days", minimum_scores=GRADED)
    return suite


def terminal(run):
    console = Console(record=True, width=300, force_terminal=False)
    render_run(console, run, None, None)
    return console.export_text()


def test_a_rate_limited_judge_is_one_call_in_two_attempts_in_every_report(store):
    with ScriptedServer([failure(429, retry_after=0), verdict(1, "Same facts.")]) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(judge_only(judge), db=store, progress=False)
    assert run.samples[0].judge_usage.calls == 1
    assert run.samples[0].judge_usage.attempts == 2
    assert (run.summary.judge_calls, run.summary.judge_attempts) == (1, 2)
    stored = store.get_run(run.id)
    assert stored.summary.judge_attempts == 2
    report = Report(stored)
    assert "Judge usage: 1 call (2 attempts)" in report.to_text()
    assert "Judge usage: 1 call (2 attempts)" in report.to_markdown()
    assert json.loads(report.to_json())["summary"]["judge_attempts"] == 2
    assert "1 call (2 attempts)" in terminal(stored)


def test_a_hanging_judge_endpoint_errors_the_metric_within_the_judge_timeout(store):
    # The endpoint answers after ten minutes: any verdict would mean it was waited for.
    with ScriptedServer([slow(verdict(1, "too late"), 600.0)]) as server:
        judge = judges.openai(
            "judge-model", base_url=server.base_url, api_key="test", judge_timeout=1
        )
        run = assay.run(judge_only(judge), db=store, progress=False)
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.ERROR
    metric = sample.metric("semantic_accuracy")
    assert not metric.passed and "--judge-timeout" in metric.error
    assert store.get_run(run.id).samples[0].metric("semantic_accuracy").score is None


def test_a_judge_only_run_has_no_deterministic_rate_and_its_gate_says_not_measured(store):
    judge = judges.function("j", lambda i, p: json.dumps({"score": 1, "reason": "Same."}))
    evaluation = assay.evaluate(
        judge_only(judge, cases=("a", "b")),
        db=store,
        progress=False,
        gate=assay.Gate(min_pass_rate=0.9),
    )
    summary = evaluation.run.summary
    assert summary.pass_rate == 1.0 and summary.check_pass_rate is None
    assert store.get_run(evaluation.run.id).summary.check_pass_rate is None
    # Its one threshold read nothing: a gate that measured nothing does not pass.
    assert not evaluation.verdict.passed and evaluation.verdict.exit_code == 1
    assert verdict_lines(evaluation.verdict.findings)[0].startswith(
        "gate: failed · it measured nothing"
    )
    assert (
        "  deterministic pass rate: not measured (no sample had a deterministic check)"
        in verdict_lines(evaluation.verdict.findings)
    )
    judged = assay.evaluate(
        judge_only(judge, cases=("a", "b")),
        db=store,
        progress=False,
        gate=assay.Gate(min_pass_rate=0.9, min_judge_score=0.5),
    )
    assert judged.verdict.passed and judged.verdict.exit_code == 0
    assert (
        "  deterministic pass rate: not measured (no sample had a deterministic check)"
        in verdict_lines(judged.verdict.findings)
    )


def test_a_run_with_nothing_evaluated_still_fails_the_minimum_pass_rate(store):
    suite = assay.Suite("Nothing", agent=lambda text, ctx: "x")
    suite.case("q", id="q")
    evaluation = assay.evaluate(suite, db=store, progress=False, gate=assay.Gate(min_pass_rate=0.5))
    assert evaluation.run.summary.check_pass_rate is None
    assert not evaluation.verdict.passed
    assert "gate: failed · deterministic pass rate: no sample was evaluated" in verdict_lines(
        evaluation.verdict.findings
    )
    assert evaluation.verdict.unchecked


def test_each_criterion_says_how_many_samples_it_scored_and_errored_without_a_spread(store):
    def complete(instructions, prompt):
        if "Question b?" in prompt:
            return "I liked it"  # not a verdict
        return json.dumps({"score": 1, "reason": "Same facts."})

    run = assay.run(
        judge_only(judges.function("j", complete), cases=("a", "b")), db=store, progress=False
    )
    criterion = run.summary.judge["semantic_accuracy"]
    assert (criterion.samples, criterion.scored, criterion.errors) == (2, 1, 1)
    # One vote has nothing to spread against: no spread at all, never a spread of 0.
    assert criterion.mean_vote_spread is None and criterion.mean == 1.0
    stored = store.get_run(run.id)
    errored = next(s for s in stored.samples if s.case_id == "b").metric("semantic_accuracy")
    assert errored.error and errored.score is None
    text = Report(stored).to_text()
    assert "criterion          mean  scored  errored  passed\n" in text
    assert "semantic_accuracy  100%  1 of 2  1        1/2 · 50%\n" in text
    assert "vote spread" not in text
    markdown = Report(stored).to_markdown()
    assert "| semantic_accuracy | 100% | 1 of 2 | 1 | 1/2 (50%) |" in markdown
    shown = terminal(stored)
    assert "semantic_accuracy 100% (scored 1 of 2, 1 errored)" in shown
    assert "spread" not in shown
