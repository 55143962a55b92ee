"""ASSAY_HEARTBEAT_INTERVAL: how often an owner beats, and the shortest lease it allows."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app
from assay_agents.evaluation import EvaluationOptions

SPEC = Path(__file__).parents[1] / "cli" / "specs" / "fault_agent.py"


def suite() -> assay.Suite:
    return assay.Suite("beats", agent=lambda text: text)


def test_without_the_variable_an_owner_beats_every_5_s_and_a_lease_is_15_s_or_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ASSAY_HEARTBEAT_INTERVAL", raising=False)
    options = EvaluationOptions.build(suite(), lease_timeout=15)
    assert (options.heartbeat_interval, options.lease_timeout) == (5.0, 15.0)
    with pytest.raises(assay.ConfigurationError, match=r"three heartbeats .*5 s apart"):
        EvaluationOptions.build(suite(), lease_timeout=14.9)


def test_the_variable_sets_the_interval_and_the_shortest_lease_follows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSAY_HEARTBEAT_INTERVAL", "2")
    options = EvaluationOptions.build(suite(), lease_timeout=6)
    assert (options.heartbeat_interval, options.lease_timeout) == (2.0, 6.0)
    with pytest.raises(assay.ConfigurationError, match=r"2 s apart\); give 6 s or more"):
        EvaluationOptions.build(suite(), lease_timeout=5.9)


@pytest.mark.parametrize("value", ["0", "0.5", "61", "nan", "inf", "-3", "five\x1b[2J"])
def test_a_bad_interval_exits_2_naming_the_variable_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(
        app,
        ["run", str(SPEC), "--quiet"],
        env={"ASSAY_HEARTBEAT_INTERVAL": value, "MARKER_DIR": str(tmp_path)},
    )
    assert done.exit_code == 2, done.output
    assert "ASSAY_HEARTBEAT_INTERVAL must be a number of seconds from 1 to 60" in done.output
    assert "\x1b" not in done.output  # the value is not repeated
    assert not (tmp_path / "calls.log").exists()
