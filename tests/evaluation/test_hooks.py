"""The run's hooks: a wrapper around each sample, and a callback after each stored one."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import json
from collections.abc import AsyncIterator, Iterator, Sequence

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.evaluation import LocalExecutor, Work

TENANT: contextvars.ContextVar[str] = contextvars.ContextVar("tenant", default="none")


def answering(text: str, ctx: assay.AgentContext) -> str:
    return f"{TENANT.get()}: {text}"


def suite_of(*ids: str, **settings: object) -> assay.Suite:
    suite = assay.Suite("Hooked", agent=answering, checks=[checks.contains("tenant-")], **settings)
    for case_id in ids:
        suite.case(case_id, id=case_id)
    return suite


@contextlib.contextmanager
def tenant(ctx: assay.AgentContext) -> Iterator[None]:
    token = TENANT.set(f"tenant-{ctx.case.id}-{ctx.sample}")
    try:
        yield
    finally:
        TENANT.reset(token)


@contextlib.asynccontextmanager
async def async_tenant(ctx: assay.AgentContext) -> AsyncIterator[None]:
    token = TENANT.set(f"tenant-{ctx.case.id}-{ctx.sample}")
    try:
        yield
    finally:
        TENANT.reset(token)


@pytest.mark.parametrize("wrapper", [tenant, async_tenant], ids=["sync", "async"])
def test_the_wrapper_is_around_each_sample_s_agent_and_checks(store, wrapper) -> None:
    run = assay.run(suite_of("a", "b"), db=store, samples=2, around_sample=wrapper, progress=False)
    answers = {(s.case_id, s.sample): s.answer for s in run.samples}
    assert answers == {
        (case, index): f"tenant-{case}-{index}: {case}" for case in "ab" for index in (0, 1)
    }
    assert all(s.status is assay.SampleStatus.PASSED for s in run.samples)


def test_the_judge_is_asked_inside_the_wrapper(store) -> None:
    seen: list[str] = []

    def complete(instructions: str, prompt: str) -> str:
        seen.append(TENANT.get())
        return json.dumps({"score": 1, "reason": "Fine."})

    suite = assay.Suite("Judged", agent=answering, judge=judges.function("house", complete))
    suite.case("q", id="q", criteria=["answer_relevancy"])
    run = assay.run(suite, db=store, samples=2, around_sample=async_tenant, progress=False)
    assert all(s.status is assay.SampleStatus.PASSED for s in run.samples)
    assert set(seen) == {"tenant-q-0", "tenant-q-1"}  # never "none": each call inside


def test_a_wrapper_that_fails_makes_that_sample_an_error_and_the_run_goes_on(store) -> None:
    @contextlib.contextmanager
    def picky(ctx: assay.AgentContext) -> Iterator[None]:
        if ctx.case.id == "enter":
            raise RuntimeError("no tenant for enter")
        yield
        if ctx.case.id == "leave":
            raise RuntimeError("could not close leave")

    def not_a_manager(ctx: assay.AgentContext) -> object:
        return 42

    run = assay.run(suite_of("enter", "leave", "fine"), db=store, around_sample=picky)
    by_case = {s.case_id: s for s in store.get_run(run.id).samples}
    assert by_case["enter"].status is assay.SampleStatus.ERROR
    assert by_case["enter"].answer is None  # the agent never ran
    assert "before the sample: RuntimeError: no tenant for enter" in (by_case["enter"].error or "")
    assert "raise RuntimeError" in str(by_case["enter"].metadata.get("traceback"))
    assert by_case["leave"].status is assay.SampleStatus.ERROR
    assert by_case["leave"].answer == "none: leave"  # what the agent did stays as evidence
    assert "after the sample: RuntimeError: could not close leave" in (by_case["leave"].error or "")
    assert by_case["leave"].fault is not None and by_case["enter"].fault is not None
    assert by_case["fine"].status is assay.SampleStatus.FAILED  # no tenant: the check fails

    odd = assay.run(suite_of("x"), db=store, around_sample=not_a_manager, progress=False)
    assert "not a context manager" in (odd.samples[0].error or "")


def test_on_result_is_told_each_stored_sample_once_as_stored(store) -> None:
    told: list[assay.SampleResult] = []
    run = assay.run(
        suite_of("a", "b", "c"),
        db=store,
        samples=2,
        around_sample=tenant,
        on_result=told.append,
        progress=False,
    )
    stored = store.get_run(run.id).samples
    assert sorted(r.key for r in told) == sorted(s.key for s in stored)
    assert len(told) == len({r.key for r in told}) == 6
    assert {r.key: r for r in told} == {s.key: s for s in stored}


def test_a_failing_on_result_is_reported_once_and_changes_nothing(store, capsys) -> None:
    calls: list[str] = []

    async def broken(result: assay.SampleResult) -> None:
        calls.append(result.case_id)
        raise ValueError("dashboard down")

    plain = assay.run(suite_of("a", "b", "c"), db=store, around_sample=tenant, progress=False)
    capsys.readouterr()
    run = assay.run(
        suite_of("a", "b", "c"), db=store, around_sample=tenant, on_result=broken, progress=False
    )
    assert sorted(calls) == ["a", "b", "c"]
    assert run.status is assay.RunStatus.COMPLETED
    strip = [dataclasses.replace(s, duration_ms=None) for s in store.get_run(run.id).samples]
    assert strip == [dataclasses.replace(s, duration_ms=None) for s in plain.samples]
    err = capsys.readouterr().err
    assert err.count("on_result failed (ValueError: dashboard down)") == 1


def test_the_suite_s_hooks_apply_and_an_argument_wins(store) -> None:
    from_suite: list[str] = []
    from_run: list[str] = []
    suite = suite_of("a", around_sample=tenant, on_result=lambda r: from_suite.append(r.case_id))
    first = assay.run(suite, db=store, progress=False)
    assert first.samples[0].answer == "tenant-a-0: a" and from_suite == ["a"]
    assay.run(suite, db=store, on_result=lambda r: from_run.append(r.case_id), progress=False)
    assert from_suite == ["a"] and from_run == ["a"]
    with pytest.raises(assay.SpecError, match="on_result"):
        suite_of("a", on_result="print")
    with pytest.raises(assay.ConfigurationError, match="around_sample"):
        assay.run(suite_of("a"), db=store, around_sample=3, progress=False)


class OneByOne:
    """An executor of its own: each item alone, in reverse, through the engine's sink path."""

    name = "one-by-one"

    async def execute(self, work: Work) -> Sequence[assay.SampleResult]:
        done: list[assay.SampleResult] = []
        for item in reversed(work.items):
            done += await LocalExecutor().execute(dataclasses.replace(work, items=(item,)))
        return done


def test_on_result_fires_once_per_stored_sample_in_another_executor(store) -> None:
    told: list[tuple[str, str | None, int]] = []
    run = assay.run(
        suite_of("a", "b"),
        db=store,
        samples=2,
        executor=OneByOne(),
        on_result=lambda r: told.append(r.key),
        progress=False,
    )
    stored = store.get_run(run.id)
    assert stored.settings.executor == "one-by-one"
    assert sorted(told) == sorted(s.key for s in stored.samples) and len(told) == 4


def test_grade_scores_an_outcome_already_held_without_a_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    suite = assay.Suite("Held", agent=answering)
    case = suite.case(
        "How long do I have to return an item?",
        id="returns",
        expected="30 days",
        expected_actions=[{"group": "kb", "name": "lookup_policy"}],
    )
    held = assay.Outcome(
        answer="Thirty days, I think.",
        actions=[assay.Action("lookup_policy", {}, group="kb")],
    )
    result = assay.grade(case, held, checks=[checks.contains("30 days")])
    assert isinstance(result, assay.SampleResult)
    assert {m.name: m.passed for m in result.metrics} == {"contains": False, "actions": True}
    assert result.status is assay.SampleStatus.FAILED and result.fault is not None
    assert not (tmp_path / ".assay").exists()  # no database, no run

    def complete(instructions: str, prompt: str) -> str:
        return json.dumps({"score": 0.95 if "Thirty" in prompt else 0.1, "reason": "Facts."})

    judged = assay.grade(
        case, "Thirty days.", judge=judges.function("scripted", complete), model="openai/gpt-x"
    )
    assert judged.model == "openai/gpt-x"
    assert {m.name: m.passed for m in judged.metrics if m.kind == "judge"} == {
        "semantic_accuracy": True,
        "answer_relevancy": True,
    }
    assert judged.judge_usage is not None and judged.judge_usage.calls == 2
    with pytest.raises(assay.SpecError, match="outcome"):
        assay.grade(case, {"answer": 3})
    with pytest.raises(assay.SpecError, match="not an assay Case"):
        assay.grade("returns", "30 days")


def test_grade_async_in_a_running_loop() -> None:
    suite = assay.Suite("Held", agent=answering)
    case = suite.case("q", id="q", expected="yes")

    async def host() -> assay.SampleResult:
        with pytest.raises(assay.ConfigurationError, match="grade_async"):
            assay.grade(case, "yes")
        return await assay.grade_async(case, "yes", checks=[checks.exact_match()])

    assert asyncio.run(host()).status is assay.SampleStatus.PASSED


KILLED_SUITE = """
import asyncio, os, pathlib
import assay_agents as assay
from assay_agents import checks

async def agent(text, ctx):
    if ctx.case.id == "c3" and os.environ.get("HOLD"):
        pathlib.Path(os.environ["HOLD"]).write_text("held")
        await asyncio.sleep(3600)
    return "ok " + text

suite = assay.Suite("Killed", agent=agent, checks=[checks.contains("ok")], concurrency=1)
for index in range(6):
    suite.case(f"c{index}", id=f"c{index}")
"""

RUNNER = """
import os, sys
import assay_agents as assay

log = os.open(sys.argv[3], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
assay.run(
    sys.argv[1],
    db=sys.argv[2],
    run_id=sys.argv[4],
    on_result=lambda result: os.write(log, f"{result.case_id}\\n".encode()),
    progress=False,
)
"""


@pytest.mark.process  # a run killed with SIGKILL, then resumed
def test_on_result_under_a_killed_and_resumed_run_fires_once_per_stored_sample(
    tmp_path, monkeypatch
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    spec = tmp_path / "killed_suite.py"
    spec.write_text(KILLED_SUITE)
    url = f"sqlite:///{tmp_path}/assay.db"
    assay.Store.open(url, migrate=True).close()
    log, held = tmp_path / "told.log", tmp_path / "held"
    env = {**os.environ, "HOLD": str(held)}
    command = [sys.executable, "-c", RUNNER, str(spec), url, str(log), "killed-run"]
    process = subprocess.Popen(command, cwd=tmp_path, env=env)
    try:
        deadline = time.monotonic() + 120
        # c0..c2 are told only once stored; c3 holds the run until it is killed.
        while not (held.exists() and log.exists() and len(log.read_text().split()) == 3):
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run never got to c3"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    first = log.read_text().split()
    with contextlib.closing(assay.Store.open(url)) as store:
        stored_at_kill = {key[0] for key in store.sample_keys("killed-run")}
        assert store.get_run("killed-run").status is assay.RunStatus.RUNNING
    assert sorted(first) == sorted(stored_at_kill) == ["c0", "c1", "c2"]

    monkeypatch.delenv("HOLD", raising=False)
    monkeypatch.chdir(tmp_path)
    second: list[str] = []
    resumed = assay.run(
        str(spec),
        db=url,
        resume="killed-run",
        on_result=lambda result: second.append(result.case_id),
        progress=False,
    )
    assert resumed.status is assay.RunStatus.COMPLETED
    stored = sorted(sample.case_id for sample in resumed.samples)
    assert sorted(second) == ["c3", "c4", "c5"]
    assert sorted(first + second) == stored == [f"c{index}" for index in range(6)]
