"""Samples fanned out as Ray tasks: stored as the local executor stores them, crashes retried.

The local Ray cluster is the package's (see conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import Work
from assay_agents.ray import RayExecutor
from assay_agents.record import write
from assay_agents.runner import Execution, MemorySink, QuietProgress, work_items
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer, verdict
from commandline import Cli

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")

SUITE = """
import assay_agents as assay
from assay_agents import checks

def agent(text, ctx):
    return "ok, " + text if ctx.case.id != "refund" else "I cannot help with that."

suite = assay.Suite("Fanned out", agent=agent, checks=[checks.contains("ok")],
                    criteria=["answer_relevancy"])
for name in ("orders", "returns", "refund"):
    suite.case(f"Question about {name}", id=name)
"""


def judge_script(body):
    # Deterministic whatever the order the samples are judged in: the grade follows the answer.
    prompt = body["messages"][-1]["content"]
    return verdict(1.0, "on topic") if "ok," in prompt else verdict(0.2, "off topic")


def stored(store: Store, run_id: str) -> list[dict]:
    """The run's samples as stored, in key order, without their clocks."""
    samples = sorted(store.get_run(run_id).samples, key=lambda sample: sample.key)
    return [_timeless(write(sample)) for sample in samples]


def _timeless(value):
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if not k.endswith(("_ms", "_at"))}
    if isinstance(value, list):
        return [_timeless(item) for item in value]
    return value


def test_a_suite_stores_the_same_results_under_the_local_and_the_ray_executor(
    cluster, tmp_path: Path
) -> None:
    (tmp_path / "fanned_eval.py").write_text(SUITE)
    cli = Cli(tmp_path)
    with ScriptedServer(judge_script) as server:
        judged = ["--judge", "judge-model", "--judge-base-url", server.base_url, "--samples", "2"]
        env = {"OPENAI_API_KEY": "test"}
        local = cli("run", "fanned_eval.py", *judged, "--quiet", env=env)
        fanned = cli("run", "fanned_eval.py", *judged, "--executor", "ray", "--quiet", env=env)
    assert local.exit_code == fanned.exit_code == 1, local.output + fanned.output
    with Store.open(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}") as store:
        first, second = store.history(suite="Fanned out")[::-1]
        assert (first.settings.executor, second.settings.executor) == ("local", "ray")
        assert second.status is assay.RunStatus.COMPLETED
        local_samples, ray_samples = stored(store, first.id), stored(store, second.id)
    assert len(ray_samples) == 6 and ray_samples == local_samples
    refund = [sample for sample in ray_samples if sample["case_id"] == "refund"]
    judged_metrics = [m for s in refund for m in s["metrics"] if m["kind"] == "judge"]
    assert refund[0]["fault"] and [m["score"] for m in judged_metrics] == [0.2, 0.2]


def test_the_judge_cache_serves_a_ray_run_from_the_drivers_history(cluster, tmp_path: Path) -> None:
    (tmp_path / "fanned_eval.py").write_text(SUITE)
    cli = Cli(tmp_path)
    with ScriptedServer(judge_script) as server:
        judged = ["--judge", "judge-model", "--judge-base-url", server.base_url, "--cache"]
        args = ["run", "fanned_eval.py", *judged, "--executor", "ray", "--quiet"]
        first = cli(*args, env={"OPENAI_API_KEY": "test"})
        asked = len(server.requests)
        second = cli(*args, env={"OPENAI_API_KEY": "test"})
    assert first.exit_code == second.exit_code == 1, first.output + second.output
    assert asked >= 3 and len(server.requests) == asked  # the second run made no judge call
    with Store.open(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}") as store:
        runs = store.history(suite="Fanned out")[::-1]
        assert [run.status for run in runs] == [assay.RunStatus.COMPLETED] * 2
        before, after = (stored(store, run.id) for run in runs)
    assert [s["metrics"] for s in before] == [s["metrics"] for s in after]
    usage = [sample.get("judge_usage") or {} for sample in after]
    assert all(not each.get("input_tokens") for each in usage)  # served replies cost nothing


def crashing_agent(text: str, ctx: assay.AgentContext) -> str:
    """Kills its worker: once for the flaky case, every time for the doomed one."""
    marker = Path(ctx.case.metadata["marker"])
    attempts = int(marker.read_text() or 0) if marker.exists() else 0
    marker.write_text(str(attempts + 1))
    if ctx.case.id == "doomed" or attempts == 0:
        os._exit(1)
    return "ok"


def test_a_lost_worker_is_retried_and_a_task_that_always_dies_is_an_errored_sample(
    cluster, tmp_path: Path
) -> None:
    suite = assay.Suite("Crashing", agent=crashing_agent, checks=[checks.contains("ok")])
    for name in ("flaky", "doomed"):
        suite.case(name, id=name, metadata={"marker": str(tmp_path / name)})
    executor = RayExecutor(max_retries=1)
    with Store.open(f"sqlite:///{tmp_path / 'history.db'}", migrate=True) as store:
        run = assay.run(suite, db=store, executor=executor, progress=False)
        samples = {sample.case_id: sample for sample in store.get_run(run.id).samples}
    assert run.status is assay.RunStatus.COMPLETED
    assert samples["flaky"].status is assay.SampleStatus.PASSED
    assert (tmp_path / "flaky").read_text() == "2"  # died once, then answered
    doomed = samples["doomed"]
    assert doomed.status is assay.SampleStatus.ERROR and (tmp_path / "doomed").read_text() == "2"
    assert re.match(r"the Ray task was lost after 1 retries: WorkerCrashedError", doomed.error)


def test_the_executor_options_are_checked_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "fanned_eval.py").write_text(SUITE)
    cli = Cli(tmp_path)
    unknown = cli("run", "fanned_eval.py", "--executor", "spark")
    alone = cli("run", "fanned_eval.py", "--ray-address", "auto")
    assert unknown.exit_code == alone.exit_code == 2
    assert "--executor 'spark': choose local or ray" in unknown.stderr
    assert "--ray-address needs --executor ray" in alone.stderr
    assert not (tmp_path / ".assay").exists()  # nothing stored


def lingering_agent(text: str, ctx: assay.AgentContext) -> str:
    """Says where it runs, then takes far longer than the test waits."""
    Path(ctx.case.metadata["folder"], ctx.case.id).write_text(str(os.getpid()))
    time.sleep(600)
    return "too late"


class ClosedSink(MemorySink):
    closed = False

    async def close(self) -> None:
        self.closed = True


def test_a_cancelled_run_cancels_its_tasks_and_closes_its_sink(cluster, tmp_path: Path) -> None:
    suite = assay.Suite("Cancelled", agent=lingering_agent, checks=[checks.contains("ok")])
    for name in ("first", "second"):
        suite.case(name, id=name, metadata={"folder": str(tmp_path)})
    plan = suite.plan(judged=False)
    sink = ClosedSink()
    work = Work(
        plan=plan,
        items=work_items(plan),
        models=(),
        agent=lingering_agent,
        execution=Execution(concurrency=2),
        sink=sink,
        progress=QuietProgress(),
    )

    async def cancelled() -> None:
        running = asyncio.ensure_future(RayExecutor().execute(work))
        while len(list(tmp_path.iterdir())) < 2:  # both samples are running on workers
            await asyncio.sleep(0.1)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(cancelled())
    assert sink.closed and sink.results == []
    pids = [int(path.read_text()) for path in tmp_path.iterdir()]
    while any(_alive(pid) for pid in pids):  # the workers running them are stopped
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_wrapper_around_each_sample_is_refused_on_ray() -> None:
    suite = assay.Suite("Wrapped", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q", id="q")
    plan = suite.plan()
    work = Work(
        plan=plan,
        items=work_items(plan),
        models=(),
        agent=suite.agent,
        execution=Execution(wrapper=lambda ctx: contextlib.nullcontext()),
        sink=MemorySink(),
        progress=QuietProgress(),
    )
    with pytest.raises(assay.ConfigurationError, match="around_sample"):
        asyncio.run(RayExecutor().execute(work))
