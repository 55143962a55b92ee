"""A run's baseline is chosen and read before any agent runs, and is the one it is compared with.

A pinned or automatic baseline that does not read (edited by hand) stops a new run before it
exists: exit 2, nothing stored, no agent called; a resumed run stays interrupted until the
history is mended or another baseline is named.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.compare import compare
from assay_agents.errors import StoreError
from assay_agents.evaluation import MemoryRunStore
from assay_agents.evaluation.comparing import on_cases_run
from assay_agents.results import CaseSnapshot, Run, RunStatus
from assay_agents.results.baseline import BaselineReason
from assay_agents.results.comparison import ComparisonPolicy
from commandline import Cli

SUITE = """
from pathlib import Path

import assay_agents as assay
from assay_agents import checks

CALLS = Path(__file__).with_name("calls.txt")


def agent(text, ctx):
    with CALLS.open("a") as calls:
        calls.write(text + "\\n")
    return "ok"


suite = assay.Suite("chosen first", agent=agent, checks=[checks.exact_match()])
for number in range(3):
    suite.case(f"q{number}", expected="ok")
"""


def _project(tmp_path: Path) -> tuple[Cli, Path]:
    (tmp_path / "suite.py").write_text(SUITE)
    return Cli(tmp_path), tmp_path / ".assay" / "assay.db"


def _damage_the_first_metric(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute("UPDATE metrics SET score = 7.5 WHERE rowid = 1")


def _edit_the_only_run(path: Path, assignment: str) -> str:
    """Edit the history's one run by hand (``SET assignment``); return its id."""
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER IF EXISTS runs_append_only_update")
        connection.execute(f"UPDATE runs SET {assignment}")
        (edited,) = connection.execute("SELECT id FROM runs").fetchone()
    return str(edited)


def _runs(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as connection:
        return list(connection.execute("SELECT id, status FROM runs ORDER BY sequence"))


def _calls(tmp_path: Path) -> int:
    calls = tmp_path / "calls.txt"
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def test_a_damaged_automatic_baseline_stops_a_new_run_before_it_exists(tmp_path: Path) -> None:
    cli, path = _project(tmp_path)
    first = cli("run", "suite.py", "--quiet")
    assert first.exit_code == 0, first.output
    _damage_the_first_metric(path)
    runs, calls = _runs(path), _calls(tmp_path)

    refused = cli("run", "suite.py", "--quiet")

    assert refused.exit_code == 2, refused.output
    baseline = runs[0][0]
    assert (
        "the automatic baseline (the latest passing run) cannot be read: "
        f"run {baseline}: metric 'exact_match' score"
    ) in refused.stderr
    assert "assay-agents baseline set RUN" in refused.stderr
    assert "--baseline-where KEY=VALUE" in refused.stderr
    assert "--resume" not in refused.output and "Traceback" not in refused.output
    assert _runs(path) == runs  # no run was created
    assert _calls(tmp_path) == calls  # and no agent was called


def test_a_resumed_run_with_a_damaged_baseline_stays_interrupted_until_one_is_named(
    tmp_path: Path,
) -> None:
    cli, path = _project(tmp_path)
    assert cli("run", "suite.py", "--quiet").exit_code == 0
    assert cli("run", "suite.py", "--quiet").exit_code == 0
    with assay.Store.open(f"sqlite:///{path}") as store:
        second, first = (run.id for run in store.history())
        # A run of the same suite that stopped before any sample: as a killed process left it.
        stopped = store.get_run(second)
        store.create_run(
            replace(
                stopped,
                id="stopped-run",
                status=RunStatus.RUNNING,
                sequence=None,
                number=None,
                finished_at=None,
                samples=(),
                summary=None,
                comparison=None,
                baseline_id=None,
                outcome=None,
                baseline_choice=None,
                lease=None,
            )
        )
        store.mark_interrupted("stopped-run", finished_at=stopped.started_at, error="killed")
    _damage_the_first_metric(path)
    assert cli("baseline", "set", first).exit_code == 0  # the damaged run is the pinned one
    calls = _calls(tmp_path)

    refused = cli("run", "suite.py", "--quiet", "--resume", "stopped-run")

    assert refused.exit_code == 2, refused.output
    assert f"the pinned baseline cannot be read: run {first}: metric" in refused.stderr
    assert "unpin it (assay-agents baseline clear SPEC)" in refused.stderr
    assert ("stopped-run", "interrupted") in _runs(path)
    assert _calls(tmp_path) == calls
    # Named another baseline, the same run resumes and is compared with it.
    resumed = cli("run", "suite.py", "--quiet", "--resume", "stopped-run", "--baseline", second)
    assert resumed.exit_code == 0, resumed.output
    assert ("stopped-run", "completed") in _runs(path)
    assert f"Baseline: {second[:8]}" in resumed.stdout
    assert _calls(tmp_path) == calls + 3


def _row_of(path: Path, run_id: str) -> tuple[object, ...]:
    with sqlite3.connect(path) as connection:
        return tuple(connection.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone())


def test_a_damaged_baseline_named_by_the_run_is_refused_by_its_name_before_anything(
    tmp_path: Path,
) -> None:
    cli, path = _project(tmp_path)
    assert cli("run", "suite.py", "--quiet").exit_code == 0
    with assay.Store.open(f"sqlite:///{path}") as store:
        (first,) = (run.id for run in store.history())
        store.create_run(
            replace(
                store.get_run(first),
                **{"id": "stopped-run", "status": RunStatus.RUNNING, "sequence": None},
                **dict.fromkeys(("number", "finished_at", "summary", "comparison", "lease")),
                **dict.fromkeys(("outcome", "baseline_choice", "baseline_id")),
                samples=(),
            )
        )
        store.mark_interrupted("stopped-run", finished_at=store.clock(), error="killed")
    _damage_the_first_metric(path)
    stopped, runs, calls = _row_of(path, "stopped-run"), _runs(path), _calls(tmp_path)
    for resumed in ((), ("--resume", "stopped-run")):
        refused = cli("run", "suite.py", "--quiet", "--baseline", "chosen first#1", *resumed)

        assert refused.exit_code == 2, refused.output
        assert (
            f"baseline 'chosen first#1': run {first}: metric 'exact_match' score" in refused.stderr
        )
        assert "automatic" not in refused.output and "Traceback" not in refused.output
        assert _runs(path) == runs and _calls(tmp_path) == calls  # nothing run or created
        assert _row_of(path, "stopped-run") == stopped  # nor the resumed run taken over


def test_the_baseline_chosen_before_the_run_is_the_one_compared_with(tmp_path: Path) -> None:
    # Another run is pinned while this one executes: the run is compared with the baseline it
    # started with, and says so.
    with assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True) as store:
        pin_meanwhile: list[str] = []

        def agent(text: str, ctx: assay.AgentContext) -> str:
            while pin_meanwhile:
                store.pin_baseline(pin_meanwhile.pop())
            return "ok"

        suite = assay.Suite("moving", agent=agent, checks=[checks.exact_match()])
        for number in range(3):
            suite.case(f"q{number}", expected="ok")
        first = assay.evaluate(suite, db=store, progress=False)
        second = assay.evaluate(suite, db=store, progress=False)
        store.pin_baseline(first.run.id)
        pin_meanwhile.append(second.run.id)

        third = assay.evaluate(suite, db=store, progress=False)

        pinned = store.pinned_baseline("moving", third.run.agent)
        assert not pin_meanwhile and pinned is not None and pinned.id == second.run.id
        assert third.comparison is not None and third.comparison.baseline_id == first.run.id
        assert third.baseline.reason is BaselineReason.PINNED
        assert third.baseline.run_id == first.run.id


def test_a_damaged_run_read_only_to_explain_no_baseline_is_named_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    # No run passed, so the earlier runs are read only to say why there is no baseline: the
    # damaged one is named in that note, and the run is stored and decided without one.
    cli, path = _project(tmp_path)
    (tmp_path / "suite.py").write_text(SUITE.replace('return "ok"', 'return "no"'))
    assert cli("run", "suite.py", "--quiet").exit_code == 1
    failed = _edit_the_only_run(path, "links = '{oops'")

    again = cli("run", "suite.py", "--quiet")

    assert again.exit_code == 1, again.output  # its samples failed: decided, not refused
    assert "Baseline: none (no earlier run could be the baseline; one does not read" in (
        again.stdout
    )
    assert f"run {failed}: stored links" in again.stdout
    assert [status for _, status in _runs(path)] == ["completed", "completed"]


def test_an_outage_while_reading_an_explicit_baseline_is_retried(tmp_path: Path) -> None:
    class Flaky(MemoryRunStore):
        outages = 1

        def baseline_run(self, ref: str, *, alike: Sequence[CaseSnapshot] = ()) -> Run:
            # How a named baseline is read (its cases; its gradings follow).
            if self.outages:
                self.outages -= 1
                raise StoreError("connection lost", transient=True)
            return super().baseline_run(ref, alike=alike)

    store = Flaky()
    suite = assay.Suite("flaky", agent=lambda text, ctx: "ok", checks=[checks.exact_match()])
    suite.case("q", expected="ok")
    first = assay.evaluate(suite, db=store, progress=False)
    store.outages = 1

    second = assay.evaluate(suite, db=store, progress=False, baseline=first.run.id, store_retry=30)

    assert store.outages == 0
    assert second.comparison is not None and second.comparison.baseline_id == first.run.id


def test_a_baseline_is_read_once_before_the_run_and_compares_as_it_would_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {"q0": "ok", "q1": "ok", "q2": "ok"}

    def agent(text: str, ctx: assay.AgentContext) -> str:
        return answers[text]

    suite = assay.Suite("held", agent=agent, checks=[checks.exact_match()], samples=2)
    for question in answers:
        suite.case(question, expected="ok")
    with assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True) as store:
        first = assay.evaluate(suite, db=store, progress=False)
        reads: list[str] = []
        graded = store.graded_samples
        monkeypatch.setattr(
            store, "graded_samples", lambda run_id: reads.append(run_id) or graded(run_id)
        )
        answers["q1"] = "no"

        second = assay.evaluate(suite, db=store, progress=False)

        assert reads == [first.run.id]  # pooled as it was chosen, never read again
        baseline, current = store.get_run(first.run.id), store.get_run(second.run.id)
        whole = compare(on_cases_run(baseline, current), current, ComparisonPolicy())
        assert second.comparison == whole
        assert [change.case_id for change in whole.changes] == ["q1"]


def test_a_legacy_candidate_with_a_damaged_summary_is_named(tmp_path: Path) -> None:
    # A run stored before outcomes were kept passes by its summary: a damaged one names it.
    cli, path = _project(tmp_path)
    assert cli("run", "suite.py", "--quiet").exit_code == 0
    legacy = _edit_the_only_run(path, 'outcome = NULL, summary = \'{"total": "many"}\'')

    refused = cli("run", "suite.py", "--quiet")

    assert refused.exit_code == 2, refused.output
    assert f"choose the baseline: run {legacy}: stored summary" in refused.stderr
