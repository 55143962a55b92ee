"""What capture from spans may conclude: no span is no evidence, and no span value sinks a run."""

from __future__ import annotations

import json
import threading

from opentelemetry import trace

import assay_agents as assay
from assay_agents import checks
from assay_agents.cli._warnings import contradicted_line
from assay_agents.evaluation import MemoryRunStore
from assay_agents.limits import MAX_CAPTURED_TEXT_CHARS
from assay_agents.otel import DIFFERENCES_KEY
from assay_agents.otel.capture import CAPTURE

TRACER = trace.get_tracer("framework-under-test")


def tool(name: str, **attributes: object) -> None:
    """A tool call as a GenAI-instrumented framework reports it, with any attribute values."""
    named = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    with TRACER.start_as_current_span(f"execute_tool {name}", attributes={**named, **attributes}):  # type: ignore[dict-item]
        pass


def chat(model: str, tokens_in: int, tokens_out: int) -> None:
    """A model call as a GenAI-instrumented framework reports it."""
    with TRACER.start_as_current_span(
        f"chat {model}",
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.response.model": model,
            "gen_ai.usage.input_tokens": tokens_in,
            "gen_ai.usage.output_tokens": tokens_out,
        },
    ):
        pass


def only_sample(agent: object, check: object, **options: object) -> assay.SampleResult:
    suite = assay.Suite("Evidence", agent=agent, capture="spans", **options)  # type: ignore[arg-type]
    suite.case("Delete the user?", checks=[check])  # type: ignore[list-item]
    (sample,) = assay.run(suite, db=MemoryRunStore(), progress=False).samples
    return sample


def test_an_agent_that_emits_no_span_has_unknown_actions_and_is_not_passed(exporter) -> None:
    def uninstrumented(text: str) -> str:
        return "done, user deleted"

    sample = only_sample(uninstrumented, checks.forbid_actions("delete_user"))
    assert sample.actions is None
    assert sample.status is not assay.SampleStatus.PASSED


def test_a_tool_span_lost_on_a_plain_thread_is_not_read_as_no_tool(exporter) -> None:
    def threaded(text: str) -> str:
        # A thread started without the caller's context: its span belongs to no sample.
        worker = threading.Thread(target=tool, args=("delete_user",))
        worker.start()
        worker.join()
        return "done"

    sample = only_sample(threaded, checks.forbid_actions("delete_user"))
    assert sample.actions is None
    assert sample.status is not assay.SampleStatus.PASSED


def test_a_model_call_with_no_tool_span_is_evidence_that_no_tool_was_called(exporter) -> None:
    def answers_directly(text: str) -> str:
        chat("gpt-4o", 10, 2)
        return "no"

    sample = only_sample(answers_directly, checks.forbid_actions("delete_user"))
    assert sample.actions == ()
    assert sample.status is assay.SampleStatus.PASSED


def test_non_finite_attribute_values_are_kept_as_text(exporter) -> None:
    def agent(text: str) -> str:
        tool("lookup", **{"gen_ai.tool.call.result": float("nan")})
        tool("lookup", **{"gen_ai.tool.call.result": [1.0, float("inf")]})
        return "ok"

    sample = only_sample(agent, checks.contains("ok"))
    assert sample.status is assay.SampleStatus.PASSED
    assert [action.result for action in sample.actions or ()] == ["nan", [1.0, "inf"]]


def test_arguments_nested_past_the_interpreters_depth_are_kept_as_text(exporter) -> None:
    deep = "[" * 200_000 + "]" * 200_000

    def agent(text: str) -> str:
        tool("lookup", **{"gen_ai.tool.call.arguments": deep, "gen_ai.tool.call.result": "x"})
        return "ok"

    sample = only_sample(agent, checks.contains("ok"))
    assert sample.status is assay.SampleStatus.PASSED
    (action,) = sample.actions or ()
    assert action.arguments == {"input": deep}


def test_an_oversized_attribute_is_cut_with_a_marker(exporter) -> None:
    huge = "A" * (MAX_CAPTURED_TEXT_CHARS + 5_000)
    big_json = json.dumps({"rows": ["B" * MAX_CAPTURED_TEXT_CHARS]})

    def agent(text: str) -> str:
        tool("read", **{"gen_ai.tool.call.result": huge})
        tool("read", **{"gen_ai.tool.call.arguments": big_json})
        return "ok"

    sample = only_sample(agent, checks.contains("ok"))
    assert sample.status is assay.SampleStatus.PASSED
    first, second = sample.actions or ()
    assert isinstance(first.result, str)
    assert first.result.startswith("A" * 1000)
    assert first.result.endswith("… [5000 more characters]")
    assert len(first.result) < MAX_CAPTURED_TEXT_CHARS + 100
    assert first.result_bytes == len(huge)  # what the model was handed, measured whole
    cut = second.arguments["input"]
    assert isinstance(cut, str) and cut.endswith("more characters]")


def test_calls_answered_by_different_models_record_each_models_tokens(exporter) -> None:
    def agent(text: str) -> str:
        chat("gpt-4o-mini", 100, 10)
        chat("gpt-4o", 1000, 50)
        chat("gpt-4o-mini", 20, 5)
        return "ok"

    sample = only_sample(agent, checks.contains("ok"))
    assert sample.metadata["model_usage"] == {
        "gpt-4o-mini": {"input_tokens": 120, "output_tokens": 15},
        "gpt-4o": {"input_tokens": 1000, "output_tokens": 50},
    }
    assert "model" not in sample.metadata
    assert sample.usage is not None
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (1120, 65)
    single = assay.run(_one_model_suite(), db=MemoryRunStore(), progress=False).samples[0]
    assert single.usage is not None and single.usage.cost_usd is not None
    assert sample.usage.cost_usd is not None and sample.usage.cost_usd > single.usage.cost_usd


def _one_model_suite() -> assay.Suite:
    def agent(text: str) -> str:
        chat("gpt-4o-mini", 1120, 65)
        return "ok"

    suite = assay.Suite("One model", agent=agent, capture="spans")
    suite.case("q", checks=[checks.contains("ok")])
    return suite


def test_spans_that_never_end_are_forgotten_when_their_sample_ends(exporter) -> None:
    def agent(text: str) -> str:
        TRACER.start_span("execute_tool never_ends")  # started, never ended
        chat("gpt-4o", 1, 1)
        return "ok"

    suite = assay.Suite("Unended", agent=agent, capture="spans")
    for number in range(5):
        suite.case(str(number), id=f"c{number}", checks=[checks.contains("ok")])
    assay.run(suite, db=MemoryRunStore(), progress=False)
    assert CAPTURE.tracked == 0


def test_spans_contradicting_the_agents_actions_are_warned_about_once(exporter) -> None:
    def agent(text: str) -> assay.Outcome:
        tool("delete_user")
        return assay.Outcome(answer="ok", actions=[])

    suite = assay.Suite("Contradicted", agent=agent, capture="spans")
    suite.case("Delete?", id="delete", checks=[checks.forbid_actions("delete_user")])
    suite.case("Again?", id="again", checks=[checks.forbid_actions("delete_user")])
    run_ = assay.run(suite, db=MemoryRunStore(), progress=False)
    for sample in run_.samples:
        assert sample.actions == ()  # what the agent returns is what is stored
        assert sample.metadata[DIFFERENCES_KEY] == {
            "actions": {"returned": [], "spans": ["delete_user"]}
        }
    line = contradicted_line(run_)
    assert line is not None
    assert line.startswith("warning: 2 of 2 samples returned actions their spans contradict")
    assert "delete" in line and "again" in line
