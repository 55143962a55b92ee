"""``pytest --assay``: a suite's cases as test items, stored as ``assay-agents run`` stores one."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from assay_agents.results import RunStatus
from assay_agents.store import Store

pytest_plugins = ["pytester"]

#: Installed, the plugin is loaded by its entry point; from a source tree, by name.
_INSTALLED = any(
    point.value == "assay_agents.pytest_plugin"
    for point in importlib.metadata.entry_points(group="pytest11")
)
PLUGIN = () if _INSTALLED else ("-p", "assay_agents.pytest_plugin")

SUITE = """
import os

import assay_agents as assay


def agent(text, ctx):
    if "boom" in text:
        raise ValueError("kaboom")
    return "30 days" if "return" in text else "I cannot say"


def reads_well(answer, ctx):
    return float(os.environ.get("READS_WELL", "1.0")), "how well it reads"


suite = assay.Suite("Support", agent=agent)
suite.case(
    "How long is the return window?",
    id="window",
    expected="30 days",
    checks=[assay.checks.exact_match(), assay.checks.custom(reads_well, threshold=0.5)],
)
suite.case("boom", id="boom", expected="30 days", checks=[assay.checks.exact_match()])
suite.case("Can I get a refund?", id="refund", checks=[assay.checks.contains("14 days")])
suite.case("Hello", id="hello", criteria=["answer_relevancy"])
"""


#: A suite name and case ids that would drive the terminal, shown raw.
HOSTILE = "Esc\x1b[31mRED\x1b[0m\u202esuite"

HOSTILE_FAILS = f"""
import assay_agents as assay

suite = assay.Suite({HOSTILE!r}, agent=lambda text, ctx: "no")
suite.case("q", id="three\u202e", checks=[assay.checks.contains("yes")])
"""


@pytest.fixture(scope="module", autouse=True)
def _loaded(tmp_path_factory: pytest.TempPathFactory) -> None:
    """What a run imports, imported before pytester's runs, which forget what they import.

    Imported again in each run, SQLAlchemy's PostgreSQL functions would register twice.
    """
    import assay_agents as assay

    suite = assay.Suite("warm", agent=lambda text, ctx: text)
    suite.case("a", expected="a", checks=[assay.checks.exact_match()])
    url = f"sqlite:///{tmp_path_factory.mktemp('warm') / 'assay.db'}"
    Store.open(url, migrate=True).close()
    assay.evaluate(suite, db=url, progress=False)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(support_suite=SUITE)
    (pytester.path / ".assay").mkdir()
    return pytester


def _db(pytester: pytest.Pytester) -> str:
    # Found as `assay-agents run` finds it: the nearest .assay/ folder upwards.
    return f"sqlite:///{pytester.path / '.assay' / 'assay.db'}"


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*PLUGIN, "-rA", *args)


def _runs(pytester: pytest.Pytester) -> list:
    with Store.open(_db(pytester), create=False) as store:
        return [store.get_run(run.id) for run in store.history(suite="Support")]


def test_each_case_on_each_model_is_an_item_and_the_run_is_stored(project) -> None:
    project.makepyfile(hostile_suite=HOSTILE_FAILS)
    models = ("--assay-model", "m1,m2")
    result = _run(project, "--assay", "support_suite.py", "--assay", "hostile_suite.py", *models)
    result.assert_outcomes(passed=2, failed=4, errors=2, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "PASSED support_suite.py::Support::window[[]m1[]]",
            "SKIPPED [[]2[]] support_suite.py: not evaluated*",
            "ERROR support_suite.py::Support::boom[[]m2[]]*",
            "FAILED support_suite.py::Support::refund[[]m1[]]*",
        ],
        consecutive=False,
    )
    # The failure names the failed metric with its reason, and the diagnosed fault.
    result.stdout.fnmatch_lines(
        [
            "*_ Support::refund[[]m1[]] _*",
            "1 of 1 sample(s) failed",
            "sample 0: failed (fault: missing_content)",
            "  contains (check) failed: does not contain '14 days'*",
        ]
    )
    # An agent error is an error, with the agent's own traceback.
    result.stdout.fnmatch_lines(
        ["sample 0: error (fault: run_error)", "  error: ValueError: kaboom", "*raise ValueError*"]
    )
    (run,) = _runs(project)
    assert run.status is RunStatus.COMPLETED
    assert run.settings.selection is None
    assert run.settings.models == ("m1", "m2")
    assert sorted(s.key for s in run.samples) == sorted(
        (case, model, 0) for case in ("window", "boom", "refund", "hello") for model in ("m1", "m2")
    )
    result.stdout.fnmatch_lines([f"assay: run {run.id} of 'Support' stored in sqlite:*"])
    # A hostile suite name and case id are escaped in the failure's header and the summary.
    hostile = "Esc\\x1b[[]31mRED\\x1b[[]0m\\u202esuite::three\\u202e[[]m1[]]"
    result.stdout.fnmatch_lines(
        [f"*_ {hostile} _*", f"FAILED hostile_suite.py::{hostile} - *"],
        consecutive=False,
    )
    _shown(result)


def test_selecting_cases_with_k_runs_only_those_as_a_selection_run(project) -> None:
    _run(project, "--assay", "support_suite.py", "-k", "window").assert_outcomes(passed=1)
    (selected,) = _runs(project)
    assert [s.case_id for s in selected.samples] == ["window"]
    assert selected.settings.selection is not None
    # A later full run is never compared with a selection run.
    result = _run(project, "--assay", "support_suite.py")
    result.stdout.fnmatch_lines(["assay: no baseline: *"])


GATED = """
import os

import assay_agents as assay


def reads_well(answer, ctx):
    return float(os.environ.get("READS_WELL", "1.0")), "how well it reads"


suite = assay.Suite("Gated", agent=lambda text, ctx: "30 days")
suite.case("Return window?", id="window", checks=[assay.checks.custom(reads_well, threshold=0.5)])
"""


def test_a_gated_regression_fails_the_session(pytester, monkeypatch) -> None:
    pytester.makepyfile(gated_suite=GATED)
    (pytester.path / ".assay").mkdir()
    assert _run(pytester, "--assay", "gated_suite.py").ret == 0  # the baseline
    monkeypatch.setenv("READS_WELL", "0.75")  # still above its threshold, but lower
    ungated = _run(pytester, "--assay", "gated_suite.py")
    assert ungated.ret == 0
    ungated.stdout.fnmatch_lines(["assay: compared with run *", "*regression: window reads_well*"])
    gated = _run(pytester, "--assay", "gated_suite.py", "--assay-fail-on-regression")
    gated.assert_outcomes(passed=1)
    gated.stdout.fnmatch_lines(
        ["assay: regression gate: failed (--assay-fail-on-regression): 1 signal regression(s)"]
    )
    assert gated.ret == 1
    # An explicit baseline: the lower run, so nothing regressed against it.
    with Store.open(_db(pytester), create=False) as store:
        lower = max(store.history(suite="Gated"), key=lambda run: run.sequence).id
    pinned = ("--assay-fail-on-regression", "--assay-baseline", lower)
    explicit = _run(pytester, "--assay", "gated_suite.py", *pinned)
    explicit.stdout.fnmatch_lines([f"assay: compared with run {lower}"])
    assert explicit.ret == 0
    missing = _run(pytester, "--assay", "gated_suite.py", "--assay-baseline", "no-such-run")
    assert missing.ret == 2
    missing.stdout.fnmatch_lines(["*baseline 'no-such-run'*"])


GATE_FAILS = f"""
import assay_agents as assay

suite = assay.Suite(
    {HOSTILE!r},
    agent=lambda text, ctx: "yes",
    gate=assay.Gate(max_side_effect_failures=0),
)
suite.case("q", id="one\u202e", expected="yes", checks=[assay.checks.exact_match()])
"""

UNCHECKED = f"""
import assay_agents as assay

suite = assay.Suite({HOSTILE!r}, agent=lambda text, ctx: "30 days", criteria=["tone"])
suite.case("How long?", id="two\u202e", expected="30 days")
"""


def _shown(result: pytest.RunResult) -> str:
    output = "\n".join(result.outlines + result.errlines)
    assert "\x1b" not in output
    assert "\u202e" not in output
    return output


def test_a_failed_gate_or_a_run_that_checked_nothing_fails_the_session(pytester) -> None:
    # As `assay-agents run` exits 1 for them, though no item failed; the summary says why.
    pytester.makepyfile(gate_suite=GATE_FAILS, unchecked_suite=UNCHECKED)
    (pytester.path / ".assay").mkdir()
    gated = _run(pytester, "-v", "--assay", "gate_suite.py")
    gated.assert_outcomes(passed=1)
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    # Names are escaped as `assay-agents run` shows them: node ids, the summary.
    node = "gate_suite.py::Esc\\x1b[[]31mRED\\x1b[[]0m\\u202esuite::one\\u202e"
    gated.stdout.fnmatch_lines(
        [
            f"{node} PASSED*",
            "assay: gate: failed*",
            "assay: run * of *: FAILED (gate): the session fails",
            f"PASSED {node}",
        ],
        consecutive=False,
    )
    _shown(gated)
    unchecked = _run(pytester, "-v", "--assay", "unchecked_suite.py")
    unchecked.assert_outcomes(skipped=1)
    assert unchecked.ret == pytest.ExitCode.TESTS_FAILED
    unchecked.stdout.fnmatch_lines(
        [
            "*::Esc\\x1b[[]31mRED\\x1b[[]0m\\u202esuite::two\\u202e SKIPPED*",
            "assay: nothing was checked: *",
            "assay: run * of *: FAILED (nothing was checked): the session fails",
        ],
        consecutive=False,
    )
    _shown(unchecked)


def test_stopping_at_the_first_failure_keeps_the_run_interrupted(project) -> None:
    result = _run(project, "--assay", "support_suite.py", "-x")
    result.assert_outcomes(passed=1, errors=1)
    (run,) = _runs(project)
    assert run.status is RunStatus.INTERRUPTED
    assert sorted(s.case_id for s in run.samples) == ["boom", "window"]
    result.stdout.fnmatch_lines(
        [f"assay: run {run.id} of 'Support' stopped before every sample ran; kept interrupted*"]
    )


def test_last_failed_runs_only_the_failed_cases_as_a_selection(project) -> None:
    _run(project, "--assay", "support_suite.py")
    again = _run(project, "--assay", "support_suite.py", "--lf")
    again.assert_outcomes(failed=1, errors=1)
    latest = max(_runs(project), key=lambda run: run.sequence)
    assert sorted(s.case_id for s in latest.samples) == ["boom", "refund"]
    assert latest.settings.selection is not None


MARKED = """
import assay_agents as assay
import pytest


def _suite(name):
    suite = assay.Suite(name, agent=lambda text, ctx: "30 days")
    checks = [assay.checks.exact_match()]
    suite.case("Return window?", id="window", expected="30 days", checks=checks)
    return suite


@pytest.mark.assay
def test_support():
    return _suite("Marked")


def test_a_run_from_a_test(assay_run):
    evaluation = assay_run(_suite("Direct"))
    assert evaluation.verdict.passed
    assert [s.case_id for s in evaluation.run.samples] == ["window"]
"""


def test_a_marked_test_and_the_fixture_run_suites(pytester) -> None:
    pytester.makepyfile(test_marked=MARKED)
    (pytester.path / ".assay").mkdir()
    result = _run(pytester)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["PASSED test_marked.py::test_support::window"])
    with Store.open(_db(pytester), create=False) as store:
        assert sorted(run.suite for run in store.history()) == ["Direct", "Marked"]


def test_without_assay_the_plugin_does_nothing(pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    _run(pytester).assert_outcomes(passed=1)
    assert not (pytester.path / ".assay").exists()


def test_a_broken_suite_file_is_a_collection_error_naming_it(pytester) -> None:
    pytester.makefile(".yaml", broken="suite: Broken\nunknown_key: 1\ngroups: []\n")
    (pytester.path / ".assay").mkdir()
    result = _run(pytester, "--assay", "broken.yaml")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # 2, as for any collection error
    result.stdout.fnmatch_lines(["*broken.yaml*unknown_key*"])
    assert not (pytester.path / ".assay" / "assay.db").exists()


def test_the_plugin_is_registered_for_pytest() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {
        "assay-agents": "assay_agents.pytest_plugin"
    }


@pytest.mark.process  # what a fresh interpreter imports
def test_loading_the_plugin_loads_no_engine() -> None:
    import subprocess
    import sys

    code = "import assay_agents.pytest_plugin, sys; print(*sys.modules)"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert (
        not {
            "assay_agents.evaluation",
            "assay_agents.store",
            "assay_agents.runner",
            "assay_agents.load",
        }
        & loaded
    )


XDIST = """
import assay_agents as assay

suite = assay.Suite("Spread", agent=lambda text, ctx: text.upper(), samples=2)
for word in ("alpha", "beta", "gamma"):
    suite.case(word, id=word, expected=word.upper(), checks=[assay.checks.exact_match()])
"""


@pytest.mark.process  # a real pytest with two xdist workers
def test_across_xdist_workers_one_run_holds_each_sample_once(pytester, monkeypatch) -> None:
    pytester.makepyfile(spread_suite=XDIST, test_marked=MARKED)
    (pytester.path / ".assay").mkdir()
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess(
        "-p",
        "xdist.plugin",
        "-p",
        "assay_agents.pytest_plugin",
        "-n",
        "2",
        "--assay",
        "spread_suite.py",
        "--assay-model",
        "m1,m2",
        "test_marked.py",  # beside the suite, a marked test and the fixture's
    )
    result.assert_outcomes(passed=9)
    with Store.open(_db(pytester), create=False) as store:
        runs = {listed.suite: store.get_run(listed.id) for listed in store.history()}
    assert sorted(runs) == ["Direct", "Marked", "Spread"]
    assert {each.status for each in runs.values()} == {RunStatus.COMPLETED}
    assert [s.key for s in runs["Marked"].samples] == [("window", "m1", 0), ("window", "m2", 0)]
    result.stdout.fnmatch_lines([f"assay: run {runs['Direct'].id} of 'Direct' stored in *"])
    run = runs["Spread"]
    keys = [s.key for s in run.samples]
    assert sorted(keys) == sorted(
        (case, model, index)
        for case in ("alpha", "beta", "gamma")
        for model in ("m1", "m2")
        for index in (0, 1)
    )
    result.stdout.fnmatch_lines([f"assay: run {run.id} of 'Spread' stored in *: 12 passed*"])


def test_a_folder_of_item_files_is_a_suite(pytester) -> None:
    import shutil

    shutil.copytree(Path(__file__).parents[2] / "examples" / "trip", pytester.path / "trip")
    (pytester.path / ".assay").mkdir()
    result = _run(pytester, "--assay", "trip/items", "-k", "set_name")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["PASSED trip/items::trip::trip.set_name"])
    with Store.open(_db(pytester), create=False) as store:
        (listed,) = store.history()
        run = store.get_run(listed.id)
    assert {s.case_id for s in run.samples} == {"trip.set_name"}
    assert run.settings.selection is not None


YAML = """
suite: Orders
agent: orders_agent.py:agent
groups:
  - key: orders
    scenarios:
      - key: where
        prompt: Where is my order?
        expect:
          contains: [order]
"""


def test_a_yaml_suite_runs_its_scenarios_as_items(pytester) -> None:
    pytester.makefile(".yaml", orders=YAML)
    pytester.makepyfile(orders_agent="def agent(text, ctx):\n    return 'Your order ships.'\n")
    (pytester.path / ".assay").mkdir()
    result = _run(pytester, "--assay", "orders.yaml", "--assay-samples", "2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["PASSED orders.yaml::Orders::*where"])
    with Store.open(_db(pytester), create=False) as store:
        (listed,) = store.history()
        run = store.get_run(listed.id)
    assert run.status is RunStatus.COMPLETED
    assert sorted(s.sample for s in run.samples) == [0, 1]


def test_a_sample_landing_twice_is_stored_once(tmp_path) -> None:
    # A worker that crashed and had its item run again sends the same samples twice.
    import assay_agents as assay
    from assay_agents.evaluation import MemoryRunStore
    from assay_agents.pytest_plugin._runs import SuiteRun

    suite = assay.Suite("Twice", agent=lambda text, ctx: text, samples=2)
    suite.case("a", id="a", expected="a", checks=[assay.checks.exact_match()])
    worker = SuiteRun(suite=suite, models=(), db=MemoryRunStore())
    worker.start(worker.cells())
    results = worker.execute(("a", None))
    worker.finish(complete=False)
    db = f"sqlite:///{tmp_path / 'assay.db'}"
    Store.open(db, migrate=True).close()
    controller = SuiteRun(suite=suite, models=(), db=db)
    controller.start(controller.cells())
    assert controller.land(results[:1]) == 1
    assert controller.land(results) == 1  # the first again is left out
    assert controller.land(results) == 0
    controller.finish(complete=False)
    assert controller.evaluation is not None, controller.error
    with Store.open(db, create=False) as store:
        run = store.get_run(controller.run_id)
    assert run.status is RunStatus.COMPLETED
    assert sorted(s.key for s in run.samples) == [("a", None, 0), ("a", None, 1)]


SLOW = """
import asyncio
import os
from pathlib import Path

import assay_agents as assay


async def agent(text, ctx):
    if text == "slow":
        Path(os.environ["STARTED"]).write_text("started")
        await asyncio.sleep(600)
    return text


suite = assay.Suite("Slow", agent=agent)
for word in ("fast", "slow", "later"):
    suite.case(word, id=word, expected=word, checks=[assay.checks.exact_match()])
"""


@pytest.mark.process  # Ctrl-C reaches a real pytest
def test_ctrl_c_keeps_the_run_interrupted_and_resumable(pytester, monkeypatch) -> None:
    import signal
    import subprocess
    import sys
    import time

    pytester.makepyfile(slow_suite=SLOW)
    (pytester.path / ".assay").mkdir()
    started = pytester.path / "started"
    monkeypatch.setenv("STARTED", str(started))
    # Only our plugin: the environment's others (LangSmith's, Hypothesis') take seconds to load.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "assay_agents.pytest_plugin",
    ]
    process = pytester.popen(
        [*command, "--assay", "slow_suite.py"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 300
        while not started.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), process.communicate()[0]
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=120)[0].decode()
    finally:
        process.kill()
        process.stdout.close()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    with Store.open(_db(pytester), create=False) as store:
        (listed,) = store.history()
        run = store.get_run(listed.id)
    assert run.status is RunStatus.INTERRUPTED
    assert [s.case_id for s in run.samples] == ["fast"]  # the one in flight was cancelled
    assert f"assay-agents run {pytester.path / 'slow_suite.py'} --resume {run.id}" in output, output
