"""Diagnosis end to end: one fault per shortfall, stored; judge refinements and the verdict."""

import json

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.report import Report
from assay_agents.testing import ScriptedServer, failure, reply, verdict

TOOLS = {"lookup_order": "Find an order by its number", "list_tickets": "List open tickets"}


def scripted(text, ctx):
    """One behaviour per case, chosen by the case id."""
    kind = ctx.case.id
    if kind == "run_error":
        raise RuntimeError("RateLimitError: 429 Too Many Requests")
    if kind == "tool_error":
        return assay.Outcome(
            answer="Sorry.",
            actions=[
                assay.Action(
                    "lookup_order", {"id": 7}, group="orders", error="HTTP 503 from orders"
                )
            ],
        )
    if kind == "missing_capability":
        return assay.Outcome(
            answer="I don't have a tool to refund orders. Please call us.", actions=[]
        )
    if kind == "expected_tool_not_called":
        return assay.Outcome(answer="Order 4821 shipped on 2024-05-01.", actions=[])
    if kind == "ungrounded_answer":
        return assay.Outcome(answer="You have 3 open tickets.", actions=[])
    if kind == "forbidden_content":
        return assay.Outcome(answer="I cannot help with that.", actions=[])
    if kind == "missing_content":
        return assay.Outcome(answer="Two weeks.", actions=[])
    if kind == "forbidden_effect":
        return assay.Outcome(
            answer="Done.", actions=[], observation=assay.Observation({"commands": ["trip.rebook"]})
        )
    return assay.Outcome(answer="Fine.", actions=[])


def grading_judge(instructions, prompt):
    if "You help a team fix" in instructions or "You pick the model" in instructions:
        raise AssertionError("no refinement or verdict is expected here")
    low = "Rate the tone" in prompt
    return json.dumps({"score": 1 if low else 5, "reason": "curt" if low else "fine"})


def fault_suite():
    suite = assay.Suite(
        "Faults",
        agent=scripted,
        available_tools=TOOLS,
        judge=judges.function("grader", grading_judge),
        criteria=["tone"],
    )
    suite.case("Where is order 7?", id="run_error")
    suite.case(
        "Where is order 7?",
        id="tool_error",
        checks=[checks.contains("shipped")],
        expected_actions=[{"group": "orders", "name": "lookup_order", "arguments": {"id": 7}}],
    )
    suite.case(
        "Refund order 9", id="missing_capability", checks=[checks.tools_called("refund_order")]
    )
    suite.case(
        "Where is order 4821?",
        id="expected_tool_not_called",
        checks=[checks.tools_called("lookup_order")],
    )
    suite.case(
        "How many tickets do I have?", id="ungrounded_answer", checks=[checks.contains("There are")]
    )
    suite.case("Cancel my plan", id="forbidden_content", checks=[checks.not_contains("I cannot")])
    suite.case(
        "How long is the return window?", id="missing_content", checks=[checks.contains("30 days")]
    )
    suite.case("Rename the trip", id="forbidden_effect", forbid={"commands": ["trip.rebook"]})
    suite.case("Rate the tone", id="low_quality")
    return suite


def test_each_fault_kind_is_diagnosed_in_precedence_and_stored(store):
    run = assay.run(fault_suite(), db=store, progress=False, judge_limit=0)
    stored = {s.case_id: s for s in store.get_run(run.id).samples}
    assert {case: s.fault for case, s in stored.items()} == {case: case for case in stored}
    advice = {case: s.recommendation for case, s in stored.items()}
    assert "lower --concurrency" in advice["run_error"]
    assert advice["tool_error"].startswith("Fix lookup_order") and "503" in advice["tool_error"]
    assert "Give the agent refund_order" in advice["missing_capability"]
    assert "has lookup_order but did not call it" in advice["expected_tool_not_called"]
    assert "“3”" in advice["ungrounded_answer"] and "list_tickets" in advice["ungrounded_answer"]
    assert "“I cannot”" in advice["forbidden_content"]
    assert "“30 days”" in advice["missing_content"]
    assert "forbid.commands" in advice["forbidden_effect"]
    assert advice["low_quality"].startswith("tone scored below its minimum: ")
    assert stored["missing_capability"].fault_tools == ("refund_order",)
    assert stored["tool_error"].fault_tools_label == "tools that errored"
    summary = store.get_run(run.id).summary
    assert summary.faults == {case: 1 for case in stored}


def refine_reply(body):
    system = body["messages"][0]["content"]
    if "You help a team fix" in system:
        return reply(
            json.dumps(
                {
                    "recommendation": "Tell the agent to quote the return window from the policy.",
                    "tool": {"name": "lookup_policy", "description": "Read a policy by topic"},
                    "instruction": "Always quote the return window from the policy.",
                }
            )
        )
    if "You pick the model" in system:
        return reply(
            json.dumps({"model": "openai/small", "rationale": "Both fail alike; small is as good."})
        )
    return verdict(0.2 if "wrong" in json.dumps(body) else 0.9, "graded")


def content_suite(judge, cases=3):
    def agent(text, ctx):
        return "Two weeks, I think."

    suite = assay.Suite(
        "Returns",
        agent=agent,
        judge=judge,
        available_tools=TOOLS,
        instructions="Answer support questions.",
        checks=[checks.contains("30 days")],
    )
    for number in range(cases):
        suite.case(
            f"Return window question {number}?",
            id=f"window-{number}",
            minimum_scores={"contains": 1.0},
        )
    return suite


def refine_calls(server):
    return [b for b in server.requests if "You help a team fix" in b["messages"][0]["content"]]


def test_refinements_are_capped_by_judge_limit_and_shown_on_the_fix_item(store):
    with ScriptedServer(refine_reply) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(content_suite(judge), db=store, progress=False, judge_limit=2)
        assert len(refine_calls(server)) == 2
    stored = store.get_run(run.id)
    refined = [s for s in stored.samples if s.refinement is not None]
    assert len(refined) == 2
    assert all(s.judge_usage.by_kind == {"refine": 1} for s in refined)
    assert refined[0].recommendation.startswith("Tell the agent to quote")
    plain = [s for s in stored.samples if s.refinement is None]
    assert plain[0].recommendation == "The answer must contain “30 days”."
    items = Report(stored).fix_items
    assert [(i.kind, i.fault, i.count) for i in items] == [
        ("fault", "missing_content", 3),
        ("instruction", "missing_content", 2),
    ]
    instruction = items[1]
    assert instruction.quote == "Always quote the return window from the policy."
    assert instruction.tools_label == "tools the judge suggested"
    assert [t.name for t in instruction.tools] == ["lookup_policy"]
    markdown = Report(
        stored, agent_name="SupportAgent", links={"instructions": "/agents/{agent}/instructions"}
    ).to_markdown()
    assert "## What to fix" in markdown
    assert "> Always quote the return window from the policy." in markdown
    assert "`/agents/SupportAgent/instructions`" in markdown


def test_a_refusing_gate_skips_refinements(store):
    asked = []

    def gate(case_id, model, fault):
        asked.append((case_id, fault))
        return False

    with ScriptedServer(refine_reply) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(content_suite(judge, cases=2), db=store, progress=False, refine_gate=gate)
        assert refine_calls(server) == []
    assert sorted(asked) == [("window-0", "missing_content"), ("window-1", "missing_content")]
    assert all(s.refinement is None for s in run.samples)


def test_a_failing_judge_leaves_the_mechanical_recommendation(store):
    def script(body):
        if "You help a team fix" in body["messages"][0]["content"]:
            return reply("Sure! Add a tool.")  # prose, not the strict form
        return verdict(0.9, "graded")

    with ScriptedServer(script) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(content_suite(judge, cases=1), db=store, progress=False)
    sample = store.get_run(run.id).samples[0]
    assert sample.recommendation == "The answer must contain “30 days”."
    assert sample.refinement is None and sample.judge_usage.by_kind == {"refine": 1}

    with ScriptedServer([failure(400)] * 10) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(content_suite(judge, cases=1), db=store, progress=False)
    assert run.samples[0].fault == "missing_content" and run.samples[0].refinement is None


def test_identical_faults_group_and_the_verdict_survives_a_rebuilt_report(store):
    with ScriptedServer(refine_reply) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(
            content_suite(judge, cases=2),
            db=store,
            progress=False,
            models=["openai/small", "openai/large"],
            judge_limit=0,
        )
        calls = len(server.requests)
    assert run.verdict is not None and run.verdict.model == "openai/small"
    assert run.judge_usage is not None and run.judge_usage.by_kind == {"verdict": 1}
    assert all(s.judge_usage is None or "verdict" not in s.judge_usage.by_kind for s in run.samples)
    stored = store.get_run(run.id)
    assert stored.verdict == run.verdict and stored.judge_usage == run.judge_usage
    report = Report(stored)
    [item] = report.fix_items
    assert (item.fault, item.count, item.case_ids, item.models) == (
        "missing_content",
        4,
        ("window-0", "window-1"),
        ("openai/small", "openai/large"),
    )
    piece = report.verdict_markdown()
    assert "**Best model: `openai/small`**" in piece and "Both fail alike" in piece
    whole = report.to_markdown()
    for part in (
        piece,
        report.fix_items_markdown(),
        report.fix_item_markdown(item),
        report.case_markdown("window-0"),
    ):
        assert part in whole
    only_small = report.fix_items_markdown(model="openai/small")
    assert "- **Samples:** 2" in only_small and "openai/large" not in only_small
    assert "Best model: openai/small" in report.to_text()
    assert json.loads(report.to_json())["verdict"]["model"] == "openai/small"
    assert len(server.requests) == calls  # the report called no judge


def test_a_resolver_and_links_name_the_server_and_the_action():
    from datetime import UTC, datetime

    from assay_agents.results import Diagnosis, Run, RunStatus, SampleResult, SampleStatus

    samples = tuple(
        SampleResult(
            case,
            "m",
            0,
            SampleStatus.FAILED,
            answer="no",
            fault="expected_tool_not_called",
            recommendation="Give the agent refund_order.",
            diagnosis=Diagnosis(("refund_order",), "missing tools"),
        )
        for case in ("a", "b")
    )
    run = Run("r", "s", "agent", "f", RunStatus.COMPLETED, datetime.now(UTC), samples=samples)

    def resolver(name):
        return {"key": "orders", "name": "Orders", "status": "available"}

    report = Report(
        run, tool_resolver=resolver, agent_name="SupportAgent", links={"mcp": "/mcp/{key}"}
    )
    [item] = report.fix_items
    assert item.server == {"key": "orders", "name": "Orders", "status": "available"}
    assert item.action == {
        "label": "Enable Orders for SupportAgent",
        "hint": "MCP Services ->",
        "path": "/mcp/orders",
    }
    assert "not enabled for SupportAgent" in (item.note or "")
    assert "`/mcp/orders`" in report.fix_item_markdown(item)


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ("the agent timed out after 5 s", "raise the timeout"),
        ("BadRequestError: maximum context length is 8192 tokens", "context window"),
        ("AuthenticationError: No API key provided", "API key"),
        ("KeyError: 'order_id'", "not a credential"),
    ],
)
def test_run_error_advice_is_read_from_the_error(error, words):
    from assay_agents.results.diagnosis import run_error_advice

    assert words in run_error_advice(error)
