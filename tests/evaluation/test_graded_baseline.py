"""A run is compared with its baseline read as graded: the same comparison as with it whole."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import assay_agents as assay
from assay_agents import checks
from assay_agents.compare import compare
from assay_agents.evaluation import GradedRunStore, MemoryRunStore
from assay_agents.evaluation.comparing import on_cases_run
from assay_agents.evaluation.ports import reads_alike
from assay_agents.results import GradedSample, Run, SampleResult
from assay_agents.results.comparison import Comparison, ComparisonPolicy

#: What the agent answers to each question; the second run changes it.
ANSWERS = {"q0": "yes", "q1": "yes", "q2": "yes", "q3": "yes"}


def agent(text: str, ctx: assay.AgentContext) -> str:
    answer = ANSWERS[text]
    if answer == "boom":
        raise ValueError("the tool broke")
    if answer == "flaky" and ctx.sample == 1:
        return "no"
    return "yes" if answer == "flaky" else answer


def _suite() -> assay.Suite:
    suite = assay.Suite(
        "Graded",
        agent=agent,
        checks=[checks.exact_match(), checks.contains("y")],
        samples=3,
    )
    for question in ANSWERS:
        suite.case(question, expected="yes")
    return suite


def test_the_comparison_with_a_baseline_read_as_graded_is_the_one_with_it_whole(
    tmp_path: Path, monkeypatch
) -> None:
    models = ["small", "large"]
    with assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True) as store:

        def evaluated(**answers: str) -> tuple[assay.Evaluation, Comparison]:
            for question, answer in answers.items():
                monkeypatch.setitem(ANSWERS, question, answer)
            done = assay.evaluate(_suite(), db=store, progress=False, models=models)
            assert done.comparison is not None
            baseline = store.get_run(done.comparison.baseline_id)
            current = store.get_run(done.run.id)
            whole = compare(on_cases_run(baseline, current), current, ComparisonPolicy())
            return done, whole

        first = assay.evaluate(_suite(), db=store, progress=False, models=models)
        # The automatic baseline (the first run, passing) ...
        second, whole = evaluated(q0="no", q1="boom", q2="flaky")
        assert second.comparison == whole and whole.baseline_id == first.run.id
        # ... and a pinned one, with its failures and errors in it.
        store.pin_baseline(second.run.id)
        third, whole = evaluated(q0="yes", q1="flaky", q3="boom")
        assert third.comparison == whole and whole.baseline_id == second.run.id
    # Each measured something: every changed item is in it, and only those.
    assert {change.case_id for change in second.comparison.changes} == {"q0", "q1", "q2"}
    assert {change.case_id for change in third.comparison.changes} == {"q0", "q1", "q3"}


def test_a_baseline_named_by_the_run_is_read_as_graded_and_compares_as_it_would_whole(
    tmp_path: Path, monkeypatch
) -> None:
    models = ["small", "large"]
    with assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True) as store:
        first = assay.evaluate(_suite(), db=store, progress=False, models=models)
        assay.evaluate(_suite(), db=store, progress=False, models=models)  # the latest, passing
        for question, answer in {"q0": "no", "q1": "boom", "q2": "flaky"}.items():
            monkeypatch.setitem(ANSWERS, question, answer)
        whole_reads: list[str] = []
        read_whole = store.get_run
        monkeypatch.setattr(
            store, "get_run", lambda ref: whole_reads.append(ref) or read_whole(ref)
        )
        named = assay.evaluate(
            _suite(), db=store, progress=False, models=models, baseline=first.run.id[:8]
        )
        assert whole_reads == []  # its cases and gradings only, never its samples whole
        monkeypatch.undo()
        assert named.comparison is not None and named.comparison.baseline_id == first.run.id
        baseline, current = store.get_run(first.run.id), store.get_run(named.run.id)
        whole = compare(on_cases_run(baseline, current), current, ComparisonPolicy())
    assert named.comparison == whole
    assert {change.case_id for change in whole.changes} == {"q0", "q1", "q2"}


class OlderStore:
    """A store written for the protocol without graded reads: it reads baselines whole."""

    def __init__(self) -> None:
        self._inner = MemoryRunStore()
        self.whole_reads = 0

    def find_baseline(
        self, run: Run, *, same_judge: bool = False, where: Mapping[str, str] | None = None
    ) -> Run | None:
        self.whole_reads += 1
        return self._inner.find_baseline(run, same_judge=same_judge, where=where)

    def pinned_baseline(self, suite: str, agent: str) -> Run | None:
        return self._inner.pinned_baseline(suite, agent)

    def __getattr__(self, name: str) -> object:
        if name == "graded_samples":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_store_without_graded_reads_compares_with_its_baseline_read_whole(monkeypatch) -> None:
    store = OlderStore()
    assert not isinstance(store, GradedRunStore)
    assert isinstance(MemoryRunStore(), GradedRunStore)
    first = assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
    monkeypatch.setitem(ANSWERS, "q0", "no")
    second = assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
    assert second.comparison is not None and second.comparison.baseline_id == first.run.id
    assert store.whole_reads == 2  # the first run found none, the second its baseline
    assert {change.case_id for change in second.comparison.changes} == {"q0"}


class GradedStoreWithoutAlike:
    """A graded store written before the baseline reads took ``alike``: read as before.

    Nor does it read a baseline named by the run as graded (``baseline_run``): read whole.
    """

    def __init__(self) -> None:
        self._inner = MemoryRunStore()
        self.graded_reads = 0

    def find_baseline(
        self,
        run: Run,
        *,
        same_judge: bool = False,
        where: Mapping[str, str] | None = None,
        samples: bool = True,
    ) -> Run | None:
        return self._inner.find_baseline(run, same_judge=same_judge, where=where, samples=samples)

    def pinned_baseline(self, suite: str, agent: str, *, samples: bool = True) -> Run | None:
        return self._inner.pinned_baseline(suite, agent, samples=samples)

    def graded_samples(self, run_id: str) -> Iterable[GradedSample]:
        self.graded_reads += 1
        return self._inner.graded_samples(run_id)

    def __getattr__(self, name: str) -> object:
        if name == "baseline_run":  # nor had it a read for a baseline named by the run
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_graded_store_whose_reads_take_no_alike_still_compares_by_its_graded_reads(
    monkeypatch,
) -> None:
    store = GradedStoreWithoutAlike()
    assert isinstance(store, GradedRunStore) and not reads_alike(store)
    assert reads_alike(MemoryRunStore())
    first = assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
    monkeypatch.setitem(ANSWERS, "q0", "no")
    second = assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
    assert second.comparison is not None and second.comparison.baseline_id == first.run.id
    assert store.graded_reads == 1
    assert {change.case_id for change in second.comparison.changes} == {"q0"}
    # A baseline named by the run is read whole from it: it has no read for that.
    named = assay.evaluate(_suite(), db=store, progress=False, baseline=first.run.id)  # type: ignore[arg-type]
    assert named.comparison is not None and named.comparison.baseline_id == first.run.id
    assert store.graded_reads == 1 and {c.case_id for c in named.comparison.changes} == {"q0"}


class StoreGivingSamplesApart:
    """A memory store whose reads give a run's samples by sample index, each item's apart."""

    def __init__(self) -> None:
        self._inner = MemoryRunStore()
        self.reads: list[str] = []

    def graded_samples(self, run_id: str) -> Iterator[GradedSample]:
        self.reads.append("open")
        try:
            yield from sorted(self._inner.graded_samples(run_id), key=lambda sample: sample.sample)
        finally:
            self.reads.append("closed")

    def sample_pages(self, run_id: str, *, size: int = 1000) -> Iterator[list[SampleResult]]:
        stored = [each for page in self._inner.sample_pages(run_id) for each in page]
        yield sorted(stored, key=lambda sample: sample.sample)

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


def test_a_store_giving_an_items_samples_apart_compares_as_one_giving_them_together(
    monkeypatch,
) -> None:
    apart, together = StoreGivingSamplesApart(), MemoryRunStore()
    evaluations = {}
    for store in (apart, together):
        monkeypatch.setitem(ANSWERS, "q0", "yes")
        monkeypatch.setitem(ANSWERS, "q2", "yes")
        assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
        monkeypatch.setitem(ANSWERS, "q0", "no")
        monkeypatch.setitem(ANSWERS, "q2", "flaky")
        evaluations[store] = assay.evaluate(_suite(), db=store, progress=False)  # type: ignore[arg-type]
    by_apart, by_together = evaluations[apart].comparison, evaluations[together].comparison
    assert by_apart is not None and by_together is not None
    assert by_apart.changes == by_together.changes and by_apart.movements == by_together.movements
    assert {change.case_id for change in by_apart.changes} == {"q0", "q2"}
    # The baseline was read in order, found apart, closed, then read again and pooled whole.
    assert apart.reads == ["open", "closed", "open", "closed"]
