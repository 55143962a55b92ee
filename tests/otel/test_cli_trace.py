"""``assay-agents run --trace``: the run's spans exported from the command line, or kept from it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app

SUITE = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("Traced CLI", agent=lambda text: "30 days")
suite.case("How long?", id="window", checks=[checks.contains("30")])
"""

#: The same suite, from code that sets the application's own tracer provider.
SUITE_WITH_PROVIDER = (
    """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

trace.set_tracer_provider(TracerProvider())
"""
    + SUITE
)


def _otlp_installed() -> bool:
    # Not the namespace alone: another exporter (Prometheus, which Ray brings) makes that one.
    try:
        return importlib.util.find_spec("opentelemetry.exporter.otlp") is not None
    except ModuleNotFoundError:
        return False


NO_OTLP = pytest.mark.skipif(_otlp_installed(), reason="the OTLP exporter is installed")


def run_cli(tmp_path: Path, source: str, *flags: str) -> tuple[int, str, assay.Run | None]:
    spec = tmp_path / "suite.py"
    spec.write_text(source)
    url = f"sqlite:///{tmp_path / 'history.db'}"
    assay.Store.open(url, migrate=True).close()
    done = CliRunner().invoke(app, ["run", str(spec), "--db", url, "--quiet", *flags])
    if done.exit_code != 0:
        return done.exit_code, done.output, None
    with assay.Store.open(url) as store:
        return 0, done.output, store.get_run(store.history(limit=1)[0].id)


def test_trace_file_writes_each_span_as_a_json_line(tmp_path) -> None:
    written = tmp_path / "spans.jsonl"
    code, output, run = run_cli(tmp_path, SUITE, "--trace-file", str(written))
    assert code == 0, output
    spans = [json.loads(line) for line in written.read_text().splitlines()]
    by_name = {span["name"]: span for span in spans}
    assert set(by_name) == {"assay.run", "assay.sample"}
    assert run is not None and run.samples[0].traces is not None
    sample = by_name["assay.sample"]
    assert sample["context"]["trace_id"] == f"0x{run.samples[0].traces.trace_id}"
    assert sample["attributes"]["assay.case_id"] == "window"
    assert by_name["assay.run"]["attributes"]["assay.run_id"] == run.id


@NO_OTLP
def test_trace_without_the_otlp_exporter_exits_2_naming_the_package(tmp_path) -> None:
    code, output, _ = run_cli(tmp_path, SUITE, "--trace")
    assert code == 2
    assert "opentelemetry-exporter-otlp" in output and "--trace-file" in output


def test_a_suite_that_set_a_provider_is_traced_unless_no_trace(tmp_path) -> None:
    code, output, run = run_cli(tmp_path, SUITE_WITH_PROVIDER)
    assert code == 0, output
    assert run is not None and run.samples[0].traces is not None

    # Run again: the provider the first run's suite set is still the process's.
    code, output, run = run_cli(tmp_path, SUITE_WITH_PROVIDER, "--no-trace")
    assert code == 0, output
    assert run is not None and run.samples[0].traces is None


def test_no_trace_with_a_trace_file_is_refused(tmp_path) -> None:
    code, output, _ = run_cli(tmp_path, SUITE, "--no-trace", "--trace-file", "x.jsonl")
    assert code == 2
    assert "--trace-file" in output


@NO_OTLP
def test_the_configuration_s_trace_key(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "assay.toml").write_text("trace = true\n")
    code, output, _ = run_cli(tmp_path, SUITE)
    assert code == 2
    assert "opentelemetry-exporter-otlp" in output
    code, output, run = run_cli(tmp_path, SUITE, "--no-trace")
    assert code == 0, output
    assert run is not None and run.samples[0].traces is None

    (tmp_path / "assay.toml").write_text('trace = "yes"\n')
    code, output, _ = run_cli(tmp_path, SUITE, "--no-trace")
    assert code == 2
    assert "trace" in output and "true or false" in output
