"""``pytest --assay``: a suite's cases as test items, stored as a run like ``assay run``'s."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from assay.results import RunStatus
from assay.store import Store

pytest_plugins = ["pytester"]

SUITE = """
import os

import assay


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


@pytest.fixture(scope="module", autouse=True)
def _loaded(tmp_path_factory: pytest.TempPathFactory) -> None:
    """What a run imports, imported before pytester's runs, which forget what they import.

    Imported again in each run, SQLAlchemy's PostgreSQL functions would register twice.
    """
    import assay

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
    # Found as `assay run` finds it: the nearest .assay/ folder upwards.
    return f"sqlite:///{pytester.path / '.assay' / 'assay.db'}"


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "assay.pytest_plugin", "-rA", *args)


def _runs(pytester: pytest.Pytester) -> list:
    with Store.open(_db(pytester), create=False) as store:
        return [store.get_run(run.id) for run in store.history(suite="Support")]


def test_each_case_on_each_model_is_an_item_and_the_run_is_stored(project) -> None:
    result = _run(project, "--assay", "support_suite.py", "--assay-model", "m1,m2")
    result.assert_outcomes(passed=2, failed=2, errors=2, skipped=2)
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

import assay


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
    gated.stdout.fnmatch_lines(["assay: *regress*"])
    assert gated.ret == 1
