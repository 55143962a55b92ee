"""Observers beside the progress display: told what a run does, never able to lose it."""

from __future__ import annotations

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import Verdict
from assay_agents.runner import QuietProgress


class Recorder:
    """Writes down every event it is told, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []

    def run_started(self, run: assay.Run, total: int) -> None:
        self.events.append(("started", run.id, total))

    def sample_finished(self, run: assay.Run, result: assay.SampleResult) -> None:
        self.events.append(("sample", run.id, result.key))

    def run_finished(self, run: assay.Run, verdict: Verdict) -> None:
        self.events.append(("finished", run.id, run.status, verdict.exit_code))

    def run_interrupted(self, run: assay.Run, reason: str) -> None:
        self.events.append(("interrupted", run.id, reason))


class Broken:
    """Fails at every event it is told."""

    def run_started(self, run: assay.Run, total: int) -> None:
        raise RuntimeError("exporter down")

    def sample_finished(self, run: assay.Run, result: assay.SampleResult) -> None:
        raise RuntimeError("exporter down")

    def run_finished(self, run: assay.Run, verdict: Verdict) -> None:
        raise RuntimeError("exporter down")

    def run_interrupted(self, run: assay.Run, reason: str) -> None:
        raise RuntimeError("exporter down")


class Notes(QuietProgress):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)


def two_by_two() -> assay.Suite:
    suite = assay.Suite("Observed", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("first", id="first")
    suite.case("second", id="second")
    return suite


def test_an_observer_is_told_the_start_every_sample_and_the_end(store: assay.Store) -> None:
    recorder = Recorder()
    assert isinstance(recorder, assay.RunObserver)
    run = assay.run(two_by_two(), db=store, samples=2, observers=[recorder], progress=False)
    first, *samples, last = recorder.events
    assert first == ("started", run.id, 4)
    stored = {sample.key for sample in store.get_run(run.id).samples}
    assert sorted(key for _, _, key in samples) == sorted(stored) and len(stored) == 4
    assert last == ("finished", run.id, assay.RunStatus.COMPLETED, assay.ExitCode.OK)


def test_an_observer_that_raises_loses_nothing_and_is_reported(store: assay.Store) -> None:
    recorder, notes = Recorder(), Notes()
    evaluation = assay.evaluate(
        two_by_two(), db=store, samples=2, observers=[Broken(), recorder], progress=notes
    )
    stored = store.get_run(evaluation.run.id)
    assert stored.status is assay.RunStatus.COMPLETED and len(stored.samples) == 4
    assert evaluation.verdict.exit_code == assay.ExitCode.OK
    assert len(recorder.events) == 6  # the observer after the broken one is told everything
    reported = [note for note in notes.notes if "exporter down" in note]
    assert reported and all("Broken" in note for note in reported)
    assert any("run_started" in note for note in reported)


def test_an_interrupted_run_is_reported_and_its_resume_counts_what_is_left(
    store: assay.Store, crash_after
) -> None:
    recorder = Recorder()
    suite = two_by_two()
    with pytest.raises(assay.IncompleteRunError):
        assay.run(
            suite, db=store, samples=2, concurrency=1, observers=[recorder], progress=crash_after(1)
        )
    started, *_, interrupted = recorder.events
    run_id = str(started[1])
    assert interrupted[:2] == ("interrupted", run_id) and "harness crashed" in str(interrupted[2])
    left = 4 - len(store.sample_keys(run_id))
    again = Recorder()
    assay.run(suite, db=store, resume=run_id, observers=[again], progress=False)
    assert again.events[0] == ("started", run_id, left)
    assert sum(event[0] == "sample" for event in again.events) == left


def test_an_observer_must_listen_to_something(store: assay.Store) -> None:
    with pytest.raises(assay.ConfigurationError, match="observer"):
        assay.run(two_by_two(), db=store, observers=[object()], progress=False)
