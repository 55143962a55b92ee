"""Correlation: a span per run, sample and judge call, their trace ids stored where they belong."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.cli.app import app
from assay_agents.evaluation import MemoryRunStore
from assay_agents.otel import Correlation
from assay_agents.report import render


def judge_reply(instructions: str, prompt: str) -> str:
    if "Pick the best model" in prompt:
        return json.dumps({"model": "a", "rationale": "It answered every case."})
    return json.dumps({"score": 1, "reason": "Same facts."})


def judged_suite() -> assay.Suite:
    suite = assay.Suite(
        "Correlated", agent=lambda text, ctx: "30 days", judge=judges.function("j", judge_reply)
    )
    suite.case("How long?", id="window", expected="30 days", checks=[checks.contains("30")])
    return suite


def spans_named(exporter: InMemorySpanExporter, name: str) -> list:
    return [span for span in exporter.get_finished_spans() if span.name == name]


def trace_id(span) -> str:
    return trace.format_trace_id(span.context.trace_id)


def test_each_sample_stores_its_trace_and_its_judge_calls_and_the_verdict_lands_on_the_run(
    exporter,
) -> None:
    run = assay.run(
        judged_suite(),
        db=MemoryRunStore(),
        progress=False,
        models=["a", "b"],
        observers=[Correlation()],
    )
    run_span = spans_named(exporter, "assay.run")[0]
    samples = {
        span.attributes["assay.model"]: span for span in spans_named(exporter, "assay.sample")
    }
    judge_spans = spans_named(exporter, "assay.judge")
    assert len(judge_spans) == 2 * 2 + 1  # two criteria on each of two samples, one verdict
    for sample in run.samples:
        span = samples[sample.model]
        assert sample.traces is not None
        assert sample.traces.trace_id == trace_id(span)
        graded = [j for j in judge_spans if j.attributes.get("assay.model") == sample.model]
        assert sorted(sample.traces.judge_trace_ids) == sorted(trace_id(j) for j in graded)
        assert span.attributes["assay.run_id"] == run.id
        assert span.links[0].context.span_id == run_span.context.span_id
    (verdict_span,) = [j for j in judge_spans if "assay.model" not in j.attributes]
    assert run.verdict is not None and run.verdict.model == "a"
    assert run.traces is not None
    assert run.traces.trace_id == trace_id(run_span)
    assert run.traces.judge_trace_ids == (trace_id(verdict_span),)
    assert verdict_span.attributes["assay.run_id"] == run.id


def test_trace_ids_are_stored_and_read_back(exporter, tmp_path) -> None:
    store = assay.Store.open(f"sqlite:///{tmp_path / 'history.db'}", migrate=True)
    run = assay.run(judged_suite(), db=store, progress=False, observers=[Correlation()])
    stored = store.get_run(run.id)
    assert stored.samples[0].traces == run.samples[0].traces
    assert stored.samples[0].traces is not None
    assert len(stored.samples[0].traces.judge_trace_ids) == 2
    assert stored.traces == run.traces and stored.traces is not None


def test_the_attribute_keys_are_chosen(exporter) -> None:
    assay.run(
        judged_suite(),
        db=MemoryRunStore(),
        progress=False,
        observers=[Correlation(keys=["case_id", "suite", "judge"])],
    )
    (span,) = spans_named(exporter, "assay.sample")
    assert dict(span.attributes) == {"assay.case_id": "window", "assay.status": "passed"}
    (run_span,) = spans_named(exporter, "assay.run")
    assert dict(run_span.attributes) == {"assay.suite": "Correlated", "assay.status": "completed"}
    assert {dict(j.attributes)["assay.judge"] for j in spans_named(exporter, "assay.judge")} == {
        "j"
    }


def test_a_sampled_out_trace_stores_no_id() -> None:
    provider = TracerProvider(sampler=ALWAYS_OFF)
    exported = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exported))
    run = assay.run(
        judged_suite(),
        db=MemoryRunStore(),
        progress=False,
        observers=[Correlation(tracer=provider.get_tracer("injected"))],
    )
    assert run.samples[0].status is assay.SampleStatus.PASSED
    assert run.samples[0].traces is None and run.traces is None
    assert exported.get_finished_spans() == ()


def test_an_injected_tracer_is_used_instead_of_the_global_one(exporter) -> None:
    provider = TracerProvider()
    exported = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exported))
    run = assay.run(
        judged_suite(),
        db=MemoryRunStore(),
        progress=False,
        observers=[Correlation(tracer=provider.get_tracer("injected"))],
    )
    assert {span.name for span in exported.get_finished_spans()} == {
        "assay.run",
        "assay.sample",
        "assay.judge",
    }
    assert not spans_named(exporter, "assay.sample")
    assert run.samples[0].traces is not None


@pytest.mark.process  # what a fresh interpreter imports, and its global provider
def test_without_a_provider_runs_are_unchanged_and_capture_sets_one_that_exports_nowhere() -> None:
    code = """
import sys, assay_agents as assay
from assay_agents import checks
assert "opentelemetry" not in sys.modules, "importing assay_agents loaded opentelemetry"
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from assay_agents.evaluation import MemoryRunStore
from assay_agents.otel import Correlation
suite = assay.Suite("Plain", agent=lambda text: "ok", checks=[checks.contains("ok")])
suite.case("q")
run = assay.run(suite, db=MemoryRunStore(), progress=False, observers=[Correlation()])
assert run.samples[0].status.value == "passed", run.samples[0]
assert run.samples[0].traces is None and run.traces is None
def agent(text):
    with trace.get_tracer("fw").start_as_current_span(
        "execute_tool ping", attributes={"gen_ai.operation.name": "execute_tool",
                                         "gen_ai.tool.name": "ping"}):
        pass
    return "ok"
captured = assay.Suite("Bare", agent=agent, capture="spans")
captured.case("q")
run = assay.run(captured, db=MemoryRunStore(), progress=False)
assert isinstance(trace.get_tracer_provider(), TracerProvider)
# The provider capture set exports nowhere: it does not make later runs traced.
plain = assay.run(suite, db=MemoryRunStore(), progress=False)
assert plain.samples[0].traces is None and plain.traces is None
print([a.name for a in run.samples[0].actions])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['ping']"


def test_reports_and_report_case_show_the_trace_ids(exporter, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    with assay.Store.open(url, migrate=True) as store:
        run = assay.run(judged_suite(), db=store, progress=False, observers=[Correlation()])
    traces = run.samples[0].traces
    assert traces is not None and traces.trace_id is not None and run.traces is not None
    for format_name in ("text", "markdown", "html"):
        rendered = render(run, format_name)
        assert traces.trace_id in rendered, format_name
        assert traces.judge_trace_ids[0] in rendered, format_name
        assert str(run.traces.trace_id) in rendered, format_name
    data = json.loads(render(run, "json"))
    assert data["samples"][0]["traces"]["trace_id"] == traces.trace_id
    assert data["traces"]["trace_id"] == run.traces.trace_id

    shown = CliRunner().invoke(app, ["report", run.id, "--case", "window", "--db", url])
    assert shown.exit_code == 0, shown.output
    assert f"trace {traces.trace_id}" in shown.output
    as_json = CliRunner().invoke(
        app, ["report", run.id, "--case", "window", "--db", url, "--format", "json"]
    )
    assert json.loads(as_json.output)["samples"][0]["traces"]["judge_trace_ids"] == list(
        traces.judge_trace_ids
    )


def test_a_process_that_set_a_provider_has_its_runs_traced_without_asking(exporter) -> None:
    run = assay.run(judged_suite(), db=MemoryRunStore(), progress=False)
    (sample_span,) = spans_named(exporter, "assay.sample")
    assert run.samples[0].traces is not None
    assert run.samples[0].traces.trace_id == trace_id(sample_span)
    assert len(spans_named(exporter, "assay.judge")) == 2
    assert spans_named(exporter, "assay.run")


def test_trace_false_keeps_a_run_untraced_in_a_process_that_traces(exporter) -> None:
    run = assay.run(judged_suite(), db=MemoryRunStore(), progress=False, trace=False)
    assert run.samples[0].traces is None and run.traces is None
    assert exporter.get_finished_spans() == ()


def test_without_a_provider_set_a_run_is_not_traced_even_with_opentelemetry_loaded() -> None:
    run = assay.run(judged_suite(), db=MemoryRunStore(), progress=False)
    assert run.samples[0].traces is None and run.traces is None


def test_trace_must_be_true_false_or_none() -> None:
    with pytest.raises(assay.ConfigurationError, match="trace"):
        assay.run(judged_suite(), db=MemoryRunStore(), progress=False, trace="yes")  # type: ignore[typeddict-item]


@pytest.mark.process  # what a fresh interpreter imports
def test_a_process_that_never_loaded_opentelemetry_runs_unchanged_and_does_not_load_it() -> None:
    code = """
import sys, assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import MemoryRunStore
suite = assay.Suite("Plain", agent=lambda text: "ok", checks=[checks.contains("ok")])
suite.case("q")
run = assay.run(suite, db=MemoryRunStore(), progress=False)
assert run.samples[0].status.value == "passed", run.samples[0]
assert run.samples[0].traces is None and run.traces is None
print(sorted(name for name in sys.modules if name.split(".")[0] == "opentelemetry"))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
