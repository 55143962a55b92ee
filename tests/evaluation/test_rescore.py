"""Rescoring a stored run: checks and judge again, no agent called, a linked run compared."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.cli.app import app
from assay_agents.evaluation import MemoryRunStore
from assay_agents.results import RunStatus
from assay_agents.results.changes import ChangeKind
from assay_agents.testing import ScriptedServer, verdict


class Agent:
    """Answers until it is told to raise: a rescore must never call it."""

    def __init__(self) -> None:
        self.calls = 0
        self.broken = False

    def __call__(self, text, ctx):
        if self.broken:
            raise AssertionError("the agent was called")
        self.calls += 1
        return assay.Outcome(
            answer=f"Within thirty days ({ctx.case.id}).",
            actions=[assay.Action("lookup_policy", {"topic": "returns"}, group="kb")],
            usage=assay.Usage(100, 20, 0.002, "reported"),
        )


def suite_of(agent, judge) -> assay.Suite:
    suite = assay.Suite(
        "Rescored",
        agent=agent,
        judge=judge,
        checks=[checks.contains("days")],
        criteria=["tone"],
    )
    for name in ("returns", "refunds"):
        suite.case(
            f"How long do {name} take?",
            id=name,
            expected="30 days",
            expected_actions=[
                {"group": "kb", "name": "lookup_policy", "arguments": {"topic": "returns"}}
            ],
        )
    return suite


def scoring(score):
    return lambda body: verdict(score, "graded")


def test_rescore_calls_no_agent_and_measures_a_new_judge_on_the_same_behaviour(store) -> None:
    agent = Agent()
    with ScriptedServer(scoring(5)) as first, ScriptedServer(scoring(2)) as second:
        judge = judges.openai("judge-a", base_url=first.base_url, api_key="test")
        original = assay.run(suite_of(agent, judge), db=store, samples=2, progress=False)
        asked = len(first.requests)
        agent.broken = True
        stricter = judges.openai("judge-b", base_url=second.base_url, api_key="test")
        evaluation = assay.rescore(original.id, db=store, judge=stricter, progress=False)
        assert len(first.requests) == asked == 4  # the original judge is not asked again
        graded = len(second.requests)
    rescored = evaluation.run
    assert agent.calls == 4 and rescored.id != original.id
    assert rescored.status is RunStatus.COMPLETED
    assert rescored.links == {"rescored_from": original.id}
    assert store.get_run(rescored.id).links == {"rescored_from": original.id}
    assert rescored.fingerprint == original.fingerprint
    assert rescored.settings.judge == "judge-b @ 127.0.0.1"
    # Identical behaviour, as stored: answers, actions, usage; only the grades moved.
    behaviour = [(s.key, s.answer, s.actions, s.usage) for s in original.samples]
    assert [(s.key, s.answer, s.actions, s.usage) for s in rescored.samples] == behaviour
    assert [s.metric("tone").score for s in rescored.samples] == [0.25] * 4
    # 2 cases × 2 samples, one criterion, one vote; failing, each is diagnosed with it too.
    assert sum(s.judge_usage.by_kind["score"] for s in rescored.samples) == 4
    assert graded == sum(s.judge_usage.calls for s in rescored.samples)
    assert all(s.metric("contains").passed for s in rescored.samples)
    # Compared with the original by the usual rules: judge criteria moved, checks did not.
    assert evaluation.baseline.run_id == original.id
    comparison = evaluation.comparison
    assert comparison is not None and comparison.excluded == ()
    # A rescore of the baseline: whatever the judge criteria did is judge drift.
    assert comparison.judge_only
    assert {change.kind for change in comparison.changes} == {ChangeKind.JUDGE_DRIFT}
    assert all(change.metric == "tone" and change.is_signal for change in comparison.changes)
    assert evaluation.run.baseline_choice.why() == "the run this run rescores"
    assert evaluation.verdict.exit_code == 1  # tone now fails its minimum score


def test_checks_only_calls_no_judge_and_keeps_the_stored_grades(store) -> None:
    agent = Agent()
    with ScriptedServer(scoring(4)) as server:
        judge = judges.openai("judge-a", base_url=server.base_url, api_key="test")
        original = assay.run(suite_of(agent, judge), db=store, votes=2, progress=False)
        asked = len(server.requests)
        agent.broken = True
        evaluation = assay.rescore(original.id, db=store, checks_only=True, progress=False)
        assert len(server.requests) == asked
    rescored = evaluation.run
    grades = [(s.key, s.metric("tone").score, s.metric("tone").votes) for s in original.samples]
    assert [(s.key, s.metric("tone").score, s.metric("tone").votes) for s in rescored.samples] == (
        grades
    )
    assert all(s.judge_usage.source == "cached" for s in rescored.samples)
    comparison = evaluation.comparison
    assert comparison is not None and comparison.excluded == () and comparison.changes == ()
    assert evaluation.verdict.exit_code == 0


def test_a_rescore_with_a_cached_judge_asks_it_once() -> None:
    store = MemoryRunStore()
    agent = Agent()
    with ScriptedServer(scoring(5)) as server:
        judge = judges.openai("judge-a", base_url=server.base_url, api_key="test")
        original = assay.run(suite_of(agent, judge), db=store, cache=True, progress=False)
        agent.broken = True
        again = assay.rescore(original.id, db=store, cache=True, progress=False)
        assert len(server.requests) == 2
    assert [s.judge_usage.cached for s in again.run.samples] == [1, 1]
    assert again.comparison is not None and again.comparison.changes == ()


def test_a_missing_or_unfinished_run_is_refused_and_nothing_is_stored(
    tmp_path, crash_after
) -> None:
    url = f"sqlite:///{tmp_path}/assay.db"
    store = assay.Store.open(url, migrate=True)
    with pytest.raises(assay.ConfigurationError, match="no run 'nope'"):
        assay.rescore("nope", db=store, progress=False)
    result = CliRunner().invoke(app, ["rescore", "nope", "--db", url])
    assert result.exit_code == 2 and "no run 'nope'" in result.output

    suite = assay.Suite("Stopped", agent=lambda text, ctx: "x", checks=[checks.contains("x")])
    suite.case("hi", id="one")
    with pytest.raises(assay.IncompleteRunError):
        assay.run(suite, db=store, run_id="stopped-run", progress=crash_after(1))
    assert store.get_run("stopped-run").status is RunStatus.INTERRUPTED
    result = CliRunner().invoke(app, ["rescore", "stopped-run", "--db", url])
    assert result.exit_code == 2 and "not completed" in result.output
    assert [run.id for run in store.history()] == ["stopped-run"]


def test_the_commands_rescore_and_show_and_clear_the_cache(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/assay.db"
    store = assay.Store.open(url, migrate=True)
    agent = Agent()
    with ScriptedServer(scoring(5)) as server:
        judge = judges.openai("judge-a", base_url=server.base_url, api_key="test")
        original = assay.run(suite_of(agent, judge), db=store, cache=True, progress=False)
        agent.broken = True
        runner = CliRunner()
        result = runner.invoke(app, ["rescore", original.id[:8], "--db", url, "--cache", "-q"])
        assert result.exit_code == 0, result.output
        assert "2 calls (2 cached)" in result.output
        assert len(server.requests) == 2
        result = runner.invoke(
            app, ["rescore", original.id, "--db", url, "--checks-only", "--votes", "2"]
        )
        assert result.exit_code == 2 and "drop --judge and --votes" in result.output
    stats = runner.invoke(app, ["cache", "stats", "--db", url])
    assert stats.exit_code == 0 and "judge judge-a @ 127.0.0.1: 2" in stats.output
    cleared = runner.invoke(app, ["cache", "clear", "--kind", "judge", "--db", url])
    assert cleared.exit_code == 0 and "Cleared 2 cached replies" in cleared.output
    assert store.cache_stats() == []
    wrong = runner.invoke(app, ["cache", "clear", "--kind", "nothing", "--db", url])
    assert wrong.exit_code == 2
    rescored = [run for run in store.history() if run.links.get("rescored_from")]
    assert [run.links for run in rescored] == [{"rescored_from": original.id}]
    assert json.loads(json.dumps(rescored[0].links)) == {"rescored_from": original.id}


def _sqlite(tmp_path, name: str = "assay.db") -> str:
    return f"sqlite:///{tmp_path}/{name}"


def test_an_errored_sample_stays_errored_and_ungraded(tmp_path) -> None:
    def agent(text, ctx):
        if ctx.case.id == "refunds":
            raise RuntimeError("the tool timed out")
        return "Within thirty days."

    suite = assay.Suite("Errored", agent=agent, checks=[checks.exact_match()])
    suite.case("How long do returns take?", id="returns", expected="Within thirty days.")
    suite.case("How long do refunds take?", id="refunds", expected="Within thirty days.")
    store = assay.Store.open(_sqlite(tmp_path), migrate=True)
    original = assay.run(suite, db=store, samples=2, progress=False)
    evaluation = assay.rescore(original.id, db=store, progress=False)
    rescored = evaluation.run
    before = {s.key: (s.status, s.error, s.metrics) for s in original.samples}
    assert {s.key: (s.status, s.error, s.metrics) for s in rescored.samples} == before
    assert all(not s.metrics for s in rescored.samples if s.case_id == "refunds")
    assert original.summary is not None and rescored.summary is not None
    figures = ("passed", "failed", "errors", "evaluated", "check_pass_rate")
    assert [getattr(rescored.summary, f) for f in figures] == [
        getattr(original.summary, f) for f in figures
    ]
    assert evaluation.comparison is not None and evaluation.comparison.changes == ()


def test_a_rescore_says_so_and_its_links_survive_the_json_report_and_import(tmp_path) -> None:
    url, other = _sqlite(tmp_path), _sqlite(tmp_path, "other.db")
    store = assay.Store.open(url, migrate=True)
    agent = Agent()
    with ScriptedServer(scoring(5)) as first, ScriptedServer(scoring(2)) as second:
        judge = judges.openai("judge-a", base_url=first.base_url, api_key="test")
        original = assay.run(suite_of(agent, judge), db=store, progress=False)
        stricter = judges.openai("judge-b", base_url=second.base_url, api_key="test")
        rescored = assay.rescore(original.id, db=store, judge=stricter, progress=False).run
    runner = CliRunner()
    text = runner.invoke(app, ["report", rescored.id, "--format", "text", "--db", url]).output
    assert "Rescored from" in text and original.id in text
    assert f"Baseline: {original.id[:8]} (the run this run rescores)" in text
    assert "explicit --baseline" not in text
    # Only the judge moved: judge drift, never a newly failed minimum score of the agent.
    assert "(rescored: its recorded behaviour graded again" in text
    assert "2 judge drift(s), 2 for the worse; 0 other change(s)" in text
    assert "Newly failed minimum scores" not in text and "Judge drift" in text
    markdown = runner.invoke(app, ["report", rescored.id, "--format", "markdown", "--db", url])
    assert "Rescored from" in markdown.output
    exported = {}
    for run in (original, rescored):
        path = tmp_path / f"{run.id}.json"
        done = runner.invoke(
            app, ["report", run.id, "--format", "json", "--output", str(path), "--db", url]
        )
        assert done.exit_code == 0, done.output
        exported[run.id] = path
    assert json.loads(exported[rescored.id].read_text())["links"] == {"rescored_from": original.id}
    assert "links" not in json.loads(exported[original.id].read_text())
    assay.Store.open(other, migrate=True).close()
    for path in exported.values():
        done = runner.invoke(app, ["import", str(path), "--db", other])
        assert done.exit_code == 0, done.output
    with assay.Store.open(other) as imported:
        assert imported.get_run(rescored.id).links == {"rescored_from": original.id}
        comparison = imported.get_run(rescored.id).comparison
    assert comparison is not None and comparison.baseline is not None
    assert comparison.baseline.judge_only
    assert {c.kind for c in comparison.baseline.changes} == {ChangeKind.JUDGE_DRIFT}


def test_an_imported_control_pair_keeps_its_pairing_and_its_floor(tmp_path) -> None:
    url, other = _sqlite(tmp_path), _sqlite(tmp_path, "other.db")
    suite = assay.Suite("Paired", agent=lambda text, ctx: "yes", checks=[checks.contains("yes")])
    suite.case("Say yes", id="one")
    assay.Store.open(url, migrate=True).close()
    pair = assay.evaluation.control_pair(suite, db=url, progress=False)
    runner = CliRunner()
    assay.Store.open(other, migrate=True).close()
    for run in (pair.first, pair.second):
        path = tmp_path / f"{run.id}.json"
        runner.invoke(
            app, ["report", run.id, "--format", "json", "--output", str(path), "--db", url]
        )
        done = runner.invoke(app, ["import", str(path), "--db", other])
        assert done.exit_code == 0, done.output
    later = assay.run(suite, db=other, progress=False)
    with assay.Store.open(other) as imported:
        assert imported.get_run(pair.second.id).links == pair.second.links
        compared = assay.evaluation.compare(imported, pair.second.id, later.id)
    assert compared.noise_floor is not None
    assert set(compared.noise_floor.control) == {pair.first.id, pair.second.id}
