"""Comparison claims end to end through the runner and a real store (SQLite and PostgreSQL).

Runs come from `assay.run`, their case snapshots from the planner, their comparisons from the
session that completes them; nothing here is a hand-built report.
"""

import itertools
import json
import threading

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.compare import (
    MeasuredHeadline,
    NoiseLabel,
    Pairing,
    WithheldHeadline,
    compare_models,
    compare_runs,
)
from assay_agents.evaluation import run_control_async
from assay_agents.record import write
from assay_agents.report import prose

QUIET = {"progress": False}


def answer(text, ctx):
    return "You have 30 days." if "return" in text else "It takes 30 days."


def corpus(*, edited=(), setups=None, references=None, provenance=None, agent=answer):
    """Three cases; the ``edited`` ids get a reworded input; parts per case id."""
    suite = assay.Suite("Corpus", agent=agent, agent_name="Agent", checks=[checks.contains("30")])
    for case_id, text in (
        ("returns", "How long is the return window?"),
        ("warranty", "How long is the warranty?"),
        ("shipping", "How long does shipping take?"),
    ):
        suite.case(
            text + (" Please be brief." if case_id in edited else ""),
            id=case_id,
            setup=(setups or {}).get(case_id),
            expected=(references or {}).get(case_id),
            provenance=(provenance or {}).get(case_id),
        )
    return suite


def test_two_of_three_items_edited_withholds_the_headline_until_the_ceiling_is_raised(store):
    before = assay.run(corpus(), db=store, **QUIET)
    after = assay.run(
        corpus(edited={"warranty", "shipping"}, agent=lambda t, c: "no idea"), db=store, **QUIET
    )
    # A changed definition is still the automatic baseline: the items pair by their own
    # fingerprints, and the two edited ones are excluded loudly, withholding the headline.
    assert after.baseline_id == before.id
    assert len(after.comparison.baseline.excluded) == 2
    stored_before, stored_after = store.get_run(before.id), store.get_run(after.id)
    comparison = compare_runs(stored_before, stored_after)
    assert prose.summary(comparison).splitlines()[0] == (
        "1 of 3 paired item(s) compared, 2 excluded (67% of the paired corpus)"
    )
    assert isinstance(comparison.headline, WithheldHeadline)
    assert [(i.case_id, i.part_names()) for i in comparison.excluded] == [
        ("warranty", ["name", "input"]),
        ("shipping", ["name", "input"]),
    ]
    data = assay.Report(stored_after, baseline=stored_before).to_dict()["comparison"]
    order = list(data)
    assert order[0] == "summary" and data["summary"].startswith("1 of 3 paired item(s)")
    assert order.index("headline") < order.index("excluded") < order.index("changes")
    assert "pass_rate" not in json.dumps(data) and '"delta"' not in json.dumps(data)
    # The only compared item regressed, and that is still reported as an item fact.
    assert [(c.case_id, c.kind.value) for c in comparison.regressions] == [
        ("returns", "deterministic_regression")
    ]

    raised = compare_runs(stored_before, stored_after, max_excluded_share=0.7)
    assert isinstance(raised.headline, MeasuredHeadline)
    assert (raised.headline.before, raised.headline.after) == (1.0, 0.0)
    assert raised.changes == comparison.changes


def test_a_derived_setup_is_an_intended_change_and_an_authored_one_a_broken_pairing(store):
    def setups(version):
        return {"returns": {"state": version}, "warranty": {"state": version}}

    suite = corpus(setups=setups(1), provenance={"returns": {"setup": "derived"}})
    before = assay.run(suite, db=store, **QUIET)
    assert before.case("returns").definition["provenance"] == {"setup": "derived"}
    after = assay.run(
        corpus(setups=setups(2), provenance={"returns": {"setup": "derived"}}), db=store, **QUIET
    )
    comparison = compare_runs(
        store.get_run(before.id), store.get_run(after.id), max_excluded_share=0.5
    )
    assert [(i.case_id, i.pairing) for i in comparison.intended_changes] == [
        ("returns", Pairing.INTENDED)
    ]
    assert [(i.case_id, i.pairing) for i in comparison.excluded] == [("warranty", Pairing.BROKEN)]
    assert comparison.compared == 2 and comparison.regressions == ()
    assert prose.summary(comparison).splitlines()[0] == (
        "2 of 3 paired item(s) compared, 1 excluded (33% of the paired corpus)"
    )


def test_a_recorded_part_that_changed_is_a_corpus_defect_above_any_figure(store):
    def suite(reference):
        # The reference was lifted from what the system said: it is testimony.
        return corpus(
            references={"warranty": reference}, provenance={"warranty": {"expected": "recorded"}}
        )

    before = assay.run(suite("It takes 30 days."), db=store, **QUIET)
    after = assay.run(suite("It takes thirty days."), db=store, **QUIET)
    comparison = compare_runs(
        store.get_run(before.id), store.get_run(after.id), max_excluded_share=0.5
    )
    lines = prose.summary(comparison).splitlines()
    assert lines[0].startswith("2 of 3 paired item(s) compared, 1 excluded")
    assert lines[1].startswith("CORPUS DEFECT: warranty: recorded part(s) reference differ")
    assert lines[2].startswith("pass rate 100% → 100%")
    assert [i.case_id for i in comparison.corpus_defects] == ["warranty"]
    assert write(comparison)["corpus_defects"][0]["parts"][0]["provenance"] == "recorded"


class Flaky:
    """A scripted agent that varies per call: calls cycle pass, pass, pass, fail, pass, pass,
    fail, fail. Four samples per run make the first run 3/4 and the next 2/4."""

    PATTERN = (True, True, True, False, True, True, False, False)

    def __init__(self):
        self.calls = itertools.count()
        self.lock = threading.Lock()

    def reset(self, offset):
        with self.lock:
            self.calls = itertools.count(offset)

    def __call__(self, text, ctx):
        with self.lock:
            call = next(self.calls)
        return "30 days" if self.PATTERN[call % len(self.PATTERN)] else "a week"


def flaky_suite(agent):
    suite = assay.Suite(
        "Flaky", agent=agent, agent_name="Flaky", samples=4, checks=[checks.contains("30")]
    )
    suite.case("How long is the return window?", id="returns")
    return suite


def test_a_control_floor_of_a_quarter_excuses_a_quarter_and_only_when_measured(store):
    agent = Flaky()
    suite = flaky_suite(agent)

    def before_and_after():
        agent.reset(0)
        before = assay.run(suite, db=store, **QUIET)  # 3 of 4
        agent.reset(4)
        # Named: a run with a failed sample is never the automatic baseline.
        return assay.run(suite, db=store, baseline=before.id, **QUIET)  # 2 of 4

    unmeasured = before_and_after().comparison.baseline
    assert unmeasured is not None and unmeasured.noise_floor is None
    assert [c.noise for c in unmeasured.changes] == [NoiseLabel.UNMEASURED]
    assert len(unmeasured.signal_regressions) == 1  # not excused without a control run

    agent.reset(0)
    first, second = _control(suite, store)
    assert (first.summary.pass_rate, second.summary.pass_rate) == (0.75, 0.5)
    assert first.links["control"] == {"pair": [first.id, second.id], "role": "first"}
    assert second.links["control"] == {"pair": [first.id, second.id], "role": "second"}

    after = before_and_after()
    pair = store.find_control_pair(after)
    assert pair is not None and [run.id for run in pair] == [first.id, second.id]
    measured = after.comparison.baseline
    assert measured is not None and measured.noise_floor is not None
    assert measured.noise_floor.metrics["contains"] == 0.25
    assert measured.noise_floor.pass_rate == 0.25
    (change,) = measured.changes
    assert (change.movement, change.noise) == (0.25, NoiseLabel.WITHIN)
    assert measured.regressions == (change,) and measured.signal_regressions == ()
    assert measured.headline.noise is NoiseLabel.WITHIN


def _control(suite, store):
    import asyncio

    return asyncio.run(run_control_async(suite, db=store, progress=False))


def test_no_control_pair_without_a_completed_control(store):
    run = assay.run(flaky_suite(Flaky()), db=store, **QUIET)
    assert store.find_control_pair(run) is None


def test_judge_drift_through_the_runner_gates_when_unmeasured(store):
    score = {"value": 0.98}

    def complete(instructions, prompt):
        return json.dumps({"score": score["value"], "reason": "Same facts."})

    def suite():
        built = assay.Suite(
            "Judged",
            agent=answer,
            agent_name="Agent",
            judge=judges.function("scripted", complete),
            checks=[checks.contains("30")],
            criteria=["semantic_accuracy"],
        )
        built.case("How long is the return window?", id="returns", expected="30 days")
        return built

    assay.run(suite(), db=store, **QUIET)
    score["value"] = 0.92
    after = assay.run(suite(), db=store, tolerance=0.02, **QUIET)
    comparison = after.comparison.baseline
    assert comparison is not None
    assert [(c.metric, c.kind.value, c.metric_kind) for c in comparison.changes] == [
        ("semantic_accuracy", "judge_drift", "judge")
    ]
    assert comparison.signal_regressions == comparison.changes
    quiet = assay.run(suite(), db=store, tolerance=0.02, drift_tolerance=0.1, **QUIET)
    assert quiet.comparison.baseline.changes == ()  # 0.92 → 0.92: nothing moved


def test_a_run_with_two_models_stores_its_intervals(store):
    def agent(text, ctx):
        return "30 days" if ctx.model.label == "good" or ctx.case.id == "returns" else "no"

    run = assay.run(corpus(agent=agent), db=store, models=["good", "bad"], samples=2, **QUIET)
    stored = run.comparison.models
    assert stored is not None
    assert {m.model: (m.cases, m.pass_rate) for m in stored.models} == {
        "good": (3, 1.0),
        "bad": (3, pytest.approx(1 / 3)),
    }
    assert stored.pairs[0].models == ("good", "bad")
    reread = assay.Report(store.get_run(run.id))
    assert reread.model_comparison == stored == compare_models(run)
    assert "Model comparison" in reread.to_text()
