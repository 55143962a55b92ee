"""`assay.run` end to end against a real store (SQLite and PostgreSQL)."""

import asyncio
import threading

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.record import snapshot
from assay_agents.report import prose
from assay_agents.results import RunStatus
from assay_agents.results.settings import Selection


def build(answer="30 days", *, calls=None, version=None):
    def agent(text, ctx):
        if calls is not None:
            calls.append(ctx.case.id)
        return {
            "answer": answer,
            "actions": [{"name": "lookup", "group": "kb", "arguments": {"topic": "returns"}}],
        }

    suite = assay.Suite(
        "Support",
        agent=agent,
        agent_name="SupportAgent",
        version=version,
        checks=[checks.exact_match()],
    )
    suite.case(
        "How long?",
        id="returns",
        expected="30 days",
        expected_actions=[{"group": "kb", "name": "lookup", "arguments": {"topic": "returns"}}],
    )
    suite.case("Warranty?", id="warranty", expected="30 days")
    return suite


def test_run_persists_and_compares_with_the_latest_compatible_run(store):
    first = assay.run(build(), db=store, metadata={"revision": "a"}, progress=False)
    assert first.status is RunStatus.COMPLETED and first.summary.pass_rate == 1.0
    assert first.comparison is None and first.baseline_id is None
    second = assay.run(build(answer="7 days"), db=store, progress=False)
    assert second.baseline_id == first.id
    changes = second.comparison.baseline.changes
    regressed = {(c.case_id, c.metric) for c in changes}
    assert regressed == {("returns", "exact_match"), ("warranty", "exact_match")}
    stored = store.get_run(second.id)
    assert snapshot(stored) == snapshot(second)
    assert stored.metadata == {} and store.get_run(first.id).metadata == {"revision": "a"}


def grown(answers, *, extra=True):
    """The support suite, grown by one case; ``answers`` per case id (default "30 days")."""

    def agent(text, ctx):
        return {
            "answer": answers.get(ctx.case.id, "30 days"),
            "actions": [{"name": "lookup", "group": "kb", "arguments": {"topic": "returns"}}],
        }

    suite = build()
    suite.agent = agent
    if extra:
        suite.case("Shipping?", id="shipping", expected="30 days")
    return suite


def test_a_grown_suite_keeps_its_gate_on_the_unchanged_cases(store):
    first = assay.run(build(), db=store, progress=False)
    evaluation = assay.evaluate(
        grown({"warranty": "7 days"}), db=store, progress=False, fail_on_regression=True
    )
    run, comparison = evaluation.run, evaluation.comparison
    assert run.fingerprint != first.fingerprint and run.baseline_id == first.id
    assert comparison is not None and comparison.added == (("shipping", None),)
    assert [(c.case_id, c.metric) for c in comparison.signal_regressions] == [
        ("warranty", "exact_match")
    ]
    assert evaluation.verdict.regressed and evaluation.verdict.exit_code == 1
    assert prose.baseline_line(comparison).startswith(
        f"baseline {first.id[:8]} · 2 of 2 unchanged item(s) compared, 1 new (shipping)"
    )


def test_a_selection_is_compared_on_the_cases_it_ran(store):
    first = assay.run(grown({}), db=store, progress=False)
    only = grown({"returns": "7 days"}).subset(lambda case: case.id == "returns")
    evaluation = assay.evaluate(only, db=store, progress=False)
    comparison = evaluation.comparison
    assert (
        evaluation.run.baseline_id == first.id
        and evaluation.run.settings.selection == Selection(cases=1, of=3)
    )
    assert comparison is not None and comparison.removed == () and comparison.paired == 1
    assert [c.case_id for c in comparison.signal_regressions] == ["returns"]


def test_no_baseline_says_why_and_names_earlier_runs(store):
    first = assay.evaluate(build(), db=store, progress=False)
    assert first.baseline_note == "this is the first run of suite 'Support'"
    assert (
        first.baseline is not None
        and first.baseline.line() == "Baseline: none (this is the first run of suite 'Support')"
    )
    assert first.run.baseline_choice == first.baseline
    other = build()
    other.agent_name = "OtherAgent"
    second = assay.evaluate(other, db=store, progress=False)
    assert second.comparison is None
    assert "1 earlier run(s) of suite 'Support', but none by agent 'OtherAgent'" in (
        second.baseline_note or ""
    )
    assert f"assay-agents compare {first.run.id[:8]}" in (second.baseline_note or "")


def test_an_explicit_baseline_is_any_completed_run_of_the_suite_checked_before_the_agent(store):
    older = assay.run(build(version="2"), db=store, progress=False)
    taken = assay.run(build(), db=store, baseline=older.id, progress=False)
    assert taken.baseline_id == older.id
    calls = []
    stranger = assay.Suite("Billing", agent=lambda text, ctx: "x", checks=[checks.contains("x")])
    stranger.case("q")
    foreign = assay.run(stranger, db=store, progress=False)
    with pytest.raises(assay.BaselineError, match="a run of suite 'Billing'"):
        assay.run(build(calls=calls), db=store, baseline=foreign.id, progress=False)
    with pytest.raises(assay.BaselineError, match="nosuch"):
        assay.run(build(calls=calls), db=store, baseline="nosuch", progress=False)
    assert calls == []
    assert [run.id for run in store.history()] == [foreign.id, taken.id, older.id]


def test_samples_and_models_multiply_the_work(store):
    run = assay.run(
        build(), db=store, samples=3, models=["gpt-4.1-mini", "ollama/qwen3:8b"], progress=False
    )
    assert run.summary.samples == 2 * 2 * 3
    assert set(run.summary.by_model) == {"gpt-4.1-mini", "ollama/qwen3:8b"}
    assert run.settings.models == ("gpt-4.1-mini", "ollama/qwen3:8b")
    keys = [(s.case_id, s.model, s.sample) for s in run.samples]
    assert keys[:3] == [("returns", "gpt-4.1-mini", k) for k in range(3)]
    # The run handed back (not read back) is exactly what the store holds.
    assert snapshot(store.get_run(run.id)) == snapshot(run)


def test_samples_are_persisted_as_they_land(store):
    """While the last sample is still running, the earlier ones are already stored."""
    release = threading.Event()
    seen = {}

    async def agent(text, ctx):
        if ctx.case.id == "last":
            for _ in range(100):
                run = store.latest_run()
                if run is not None and len(run.samples) == 3:
                    seen["stored"] = [s.case_id for s in run.samples]
                    seen["status"] = run.status
                    break
                await asyncio.sleep(0.05)
            release.set()
        return "ok"

    suite = assay.Suite("Streaming", agent=agent, checks=[checks.contains("ok")])
    for case_id in ("a", "b", "c", "last"):
        suite.case(case_id, id=case_id)
    assay.run(suite, db=store, concurrency=1, progress=False)
    assert release.is_set()
    assert seen == {"stored": ["a", "b", "c"], "status": RunStatus.RUNNING}


def crashy_suite(calls, version=None):
    async def agent(text, ctx):
        calls.append(ctx.case.id)
        await asyncio.sleep(0.01)  # a point where the crash can stop the next sample
        return "ok"

    suite = assay.Suite("Crashy", agent=agent, checks=[checks.contains("ok")], version=version)
    for index in range(6):
        suite.case(f"c{index}", id=f"c{index}")
    return suite


def test_a_crash_marks_the_run_interrupted_and_resume_completes_it(store, crash_after):
    calls = []
    suite = crashy_suite(calls)
    with pytest.raises(assay.IncompleteRunError, match="harness crashed") as raised:
        assay.run(suite, db=store, concurrency=1, progress=crash_after(3))
    assert isinstance(raised.value.__cause__, RuntimeError)
    interrupted = store.latest_run()
    assert interrupted.status is RunStatus.INTERRUPTED
    assert interrupted.error == "RuntimeError: harness crashed"
    assert [s.case_id for s in interrupted.samples] == ["c0", "c1", "c2"]

    assert calls == ["c0", "c1", "c2", "c3"]  # c3 was cut short by the crash
    calls.clear()
    resumed = assay.run(suite, db=store, resume=interrupted.id[:8], progress=False)
    assert resumed.id == interrupted.id and resumed.status is RunStatus.COMPLETED
    assert calls == ["c3", "c4", "c5"]
    assert resumed.summary.passed == 6
    assert [s.case_id for s in resumed.samples] == [f"c{i}" for i in range(6)]
    with pytest.raises(assay.ConfigurationError, match="read-only"):
        assay.run(suite, db=store, resume=resumed.id, progress=False)


def test_resume_refuses_a_changed_suite(store, crash_after):
    with pytest.raises(assay.IncompleteRunError):
        assay.run(crashy_suite([]), db=store, concurrency=1, progress=crash_after(1))
    changed = crashy_suite([], version="2")
    with pytest.raises(assay.BaselineError, match="fingerprint"):
        assay.run(changed, db=store, resume=store.latest_run().id, progress=False)


def test_invalid_options_fail_before_anything_is_stored(store):
    for options in (
        {"samples": 0},
        {"concurrency": -1},
        {"tolerance": 2},
        {"metadata": {"x": object()}},
        {"models": ["gpt-4o", "openai/gpt-4o"]},
    ):
        with pytest.raises(assay.SpecError):
            assay.run(build(), db=store, progress=False, **options)
    assert store.history() == []


def test_something_that_is_not_a_judge_is_refused_before_anything_runs(store):
    suite = assay.Suite("Judged", agent=lambda text, ctx: "ok", judge=object())
    suite.case("q", expected="ok")
    with pytest.raises(assay.ConfigurationError, match="not a judge"):
        assay.run(suite, db=store, progress=False)
    assert store.history() == []


def test_a_selection_run_is_never_the_baseline_of_a_full_run(store):
    full = assay.run(grown({}), db=store, progress=False)
    only = grown({}).subset(lambda case: case.id == "returns")
    assay.run(only, db=store, progress=False)  # a debugging run of one case
    evaluation = assay.evaluate(
        grown({"warranty": "7 days"}), db=store, progress=False, fail_on_regression=True
    )
    assert evaluation.run.baseline_id == full.id
    assert [c.case_id for c in evaluation.comparison.signal_regressions] == ["warranty"]
    assert evaluation.verdict.regressed


def test_the_library_chooses_the_same_baseline_and_says_why(store):
    on_main = assay.run(build(), db=store, metadata={"branch": "main"}, progress=False)
    assay.run(build(), db=store, metadata={"branch": "feature"}, progress=False)
    broken = assay.evaluate(build(answer="7 days"), db=store, progress=False)
    assert broken.verdict.outcome.value == "regressed" and broken.run.outcome is not None

    restricted = assay.evaluate(
        build(), db=store, progress=False, baseline_where={"branch": "main"}
    )
    assert restricted.run.baseline_id == on_main.id
    assert restricted.baseline is not None and restricted.baseline.line() == (
        f"Baseline: {on_main.id[:8]} (latest passing run where branch=main)"
    )
    assert store.get_run(restricted.run.id).baseline_choice == restricted.baseline

    store.pin_baseline(broken.run.id)
    pinned = assay.evaluate(
        build(answer="7 days"), db=store, progress=False, baseline_where={"branch": "main"}
    )
    assert pinned.run.baseline_id == broken.run.id and pinned.comparison.changes == ()
    assert pinned.baseline.line() == f"Baseline: {broken.run.id[:8]} (pinned)"
    with pytest.raises(assay.SpecError, match="baseline_where"):
        assay.evaluate(build(), db=store, progress=False, baseline_where={"pr": 7})
