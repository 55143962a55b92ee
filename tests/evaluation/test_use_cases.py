"""The use cases a front end adapts, called as a library: a real SQLite file, real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.errors import BaselineError, ConfigurationError
from assay_agents.evaluation import (
    ExitCode,
    MemoryRunStore,
    compare,
    control_pair,
    history,
    lookup,
)
from assay_agents.load import Selection
from assay_agents.report.prose import verdict_lines
from assay_agents.store import Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_eval.py"
UNCHECKED = """
import assay_agents as assay

suite = assay.Suite("Unchecked", agent=lambda text, ctx: "anything")
suite.case("q", id="q")
"""


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENT_REVISION", raising=False)
    made = f"sqlite:///{tmp_path / 'history.db'}"
    Store.open(made, migrate=True, create=True).close()
    return made


def _run(url: str, monkeypatch: pytest.MonkeyPatch, revision: str | None = None) -> assay.Run:
    if revision is None:
        monkeypatch.delenv("AGENT_REVISION", raising=False)
    else:
        monkeypatch.setenv("AGENT_REVISION", revision)
    return assay.run(EXAMPLE, db=url, progress=False)


def test_compare_finds_the_regression_and_gates_only_when_asked(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _run(url, monkeypatch)
    after = _run(url, monkeypatch, "regressed")
    with Store.open(url) as store:
        reported = compare(store, before.id, after.id[:8])
        gated = compare(store, before, after.id, fail_on_regression=True)
    assert reported.current.id == after.id and reported.noise_floor is None
    assert reported.comparison.signal_regressions
    assert reported.verdict.exit_code is ExitCode.OK and reported.verdict.regressions > 0
    assert gated.verdict.regressed and gated.verdict.exit_code is ExitCode.FAILED
    assert verdict_lines(gated.verdict.findings)[0].startswith("regression gate: failed")


def test_two_runs_already_read_need_no_store(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before, after = _run(url, monkeypatch), _run(url, monkeypatch)
    compared = compare(None, before, after, fail_on_regression=True)
    assert compared.verdict.passed and not compared.comparison.signal_regressions
    with pytest.raises(ConfigurationError, match="no store"):
        compare(None, before.id, after)


def test_a_control_pair_measures_the_floor_later_comparisons_use(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = control_pair(EXAMPLE, db=url, progress=False)
    assert pair.verdict.passed and pair.noise_floor is not None and not pair.too_flaky
    assert pair.first.links["control"] == {"pair": [pair.first.id, pair.second.id], "role": "first"}
    after = _run(url, monkeypatch, "regressed")
    with Store.open(url) as store:
        compared = compare(store, pair.second.id, after.id)
    assert compared.noise_floor is not None
    assert set(compared.noise_floor.control) == {pair.first.id, pair.second.id}


def test_a_pair_that_checked_nothing_fails_unless_accepted(url: str, tmp_path: Path) -> None:
    spec = tmp_path / "unchecked.py"
    spec.write_text(UNCHECKED, encoding="utf-8")
    refused = control_pair(spec, db=url, progress=False)
    accepted = control_pair(spec, db=url, progress=False, allow_unchecked=True)
    assert refused.noise_floor is None and refused.verdict.unchecked
    assert refused.verdict.exit_code is ExitCode.FAILED
    assert verdict_lines(refused.verdict.findings)[0].startswith("no noise floor was measured")
    assert accepted.verdict.exit_code is ExitCode.OK


def test_history_lists_runs_newest_first_and_says_why_none_matched(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _run(url, monkeypatch), _run(url, monkeypatch)
    with Store.open(url) as store:
        found = history(store, suite="Customer support")
        missing = history(store, suite="Customer suport")
    assert [run.id for run in found.runs] == [second.id, first.id]
    assert found.states == ("completed", "completed") and found.verdict.passed
    assert missing.runs == () and "did you mean 'Customer support'" in (missing.missing or "")


def test_lookup_finds_a_run_and_the_baseline_it_is_compared_with(
    url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with Store.open(url) as store, pytest.raises(ConfigurationError, match="no run yet"):
        lookup(store)
    first = _run(url, monkeypatch)
    second = assay.run(EXAMPLE, db=url, progress=False, selection=Selection(cases=["returns"]))
    spec = tmp_path / "unchecked.py"
    spec.write_text(UNCHECKED, encoding="utf-8")
    other = assay.run(spec, db=url, progress=False, allow_unchecked=True)
    with Store.open(url) as store:
        latest = lookup(store)
        against = lookup(store, second.id[:8], baseline=first.id)
        with pytest.raises(BaselineError, match="not of 'Customer support'"):
            lookup(store, second.id, baseline=other.id)
    assert latest.run.id == other.id and latest.baseline is None
    assert against.run.id == second.id and against.baseline is not None
    assert against.baseline.id == first.id and against.verdict.exit_code is ExitCode.OK


def test_the_use_cases_read_a_store_in_memory_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_REVISION", raising=False)
    store = MemoryRunStore()
    before = assay.run(EXAMPLE, db=store, progress=False)
    monkeypatch.setenv("AGENT_REVISION", "regressed")
    after = assay.run(EXAMPLE, db=store, progress=False)
    compared = compare(store, before.id, after.id, fail_on_regression=True)
    found = history(store)
    assert compared.verdict.exit_code is ExitCode.FAILED
    assert [run.id for run in found.runs] == [after.id, before.id]
    assert found.states == ("completed", "completed")
    assert lookup(store).run.id == after.id
