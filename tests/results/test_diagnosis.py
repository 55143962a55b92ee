"""Diagnosis on values: the fault order, pair by pair, and what each finding names."""

from __future__ import annotations

import pytest

from assay_agents.agent import Action
from assay_agents.record import read, read_sample, write
from assay_agents.results import Diagnosis, MetricResult, SampleResult, decide_status, scored
from assay_agents.results.diagnosis import (
    EXPECTED_TOOLS,
    FAULT_ORDER,
    MISSING_TOOLS,
    CaseFacts,
    Fault,
    Roster,
    diagnose,
)
from assay_agents.spec import ExpectedAction

ROSTER = Roster(
    {
        "lookup_order": "Find an order by number",
        "issue_refund": "Refund an order",
        "lookup_policy": "Read a policy",
    }
)
SETTINGS = {
    "tools_called": {"type": "ToolsCalled", "names": ["lookup_order"]},
    "forbid_actions": {"type": "ForbidActions", "names": ["issue_refund"]},
    "contains": {"type": "Contains", "text": "30 days"},
    "not_contains": {"type": "NotContains", "text": "I cannot"},
    "actions": {"type": "OrderedActions"},
    "token_budget": {"type": "TokenBudget", "tokens": 10},
}


def failing(name: str, category: str = "content", kind: str = "check") -> MetricResult:
    return scored(name, kind, category, 1.0 if kind == "check" else 0.7, 0.0, f"{name} fell short")


def passing(name: str, category: str = "content", kind: str = "check") -> MetricResult:
    return scored(name, kind, category, 1.0 if kind == "check" else 0.7, 1.0, "fine")


def sample(
    *metrics: MetricResult,
    answer: str | None = "Your refund is on its way.",
    actions: tuple[Action, ...] | None = (),
    error: str | None = None,
) -> SampleResult:
    return SampleResult(
        "refund",
        "m",
        0,
        decide_status(error, metrics),
        answer=answer,
        actions=actions,
        error=error,
        metrics=metrics,
    )


def fault(result: SampleResult, facts: CaseFacts | None = None, roster: Roster = ROSTER) -> Fault:
    found = diagnose(
        result, facts or CaseFacts("Refund order 7", ("lookup_order",), settings=SETTINGS), roster
    )
    assert found is not None
    return found.fault


REFUND = Action("issue_refund", {"id": 7}, result={"refunded": True})
BROKEN = Action("lookup_order", {"id": 7}, error="HTTP 503 from orders")
LOOKUP = Action("lookup_order", {"id": 7}, result={"id": 7})
FORBIDDEN = failing("forbid_actions", "actions")
NOT_CALLED = failing("tools_called", "actions")
JUDGE = failing("tone", "judge", "judge")


def test_the_order_is_the_seeds_with_the_forbidden_effect_right_after_run_error():
    assert [f.value for f in FAULT_ORDER] == [
        "run_error",
        "forbidden_effect",
        "tool_error",
        "missing_capability",
        "expected_tool_not_called",
        "ungrounded_answer",
        "forbidden_content",
        "missing_content",
        "low_quality",
        "over_budget",
        "check_failed",
        "metric_error",
    ]


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        # A forbidden refund is the harm itself: it outranks what the answer said or lacked.
        (sample(FORBIDDEN, failing("contains"), actions=(LOOKUP, REFUND)), Fault.FORBIDDEN_EFFECT),
        (
            sample(FORBIDDEN, failing("not_contains"), actions=(LOOKUP, REFUND)),
            Fault.FORBIDDEN_EFFECT,
        ),
        (sample(FORBIDDEN, NOT_CALLED, actions=(REFUND,)), Fault.FORBIDDEN_EFFECT),
        (
            sample(
                FORBIDDEN,
                passing("contains"),
                actions=(LOOKUP, REFUND),
                answer="I don't have a tool to refund orders, but I refunded it.",
            ),
            Fault.FORBIDDEN_EFFECT,
        ),
        # A forbidden call that errored is fixed by not making it, not by fixing the tool.
        (
            sample(FORBIDDEN, actions=(LOOKUP, Action("issue_refund", error="declined"))),
            Fault.FORBIDDEN_EFFECT,
        ),
        (sample(FORBIDDEN, answer=None, actions=(REFUND,), error="boom"), Fault.RUN_ERROR),
        (sample(NOT_CALLED, failing("contains"), actions=(BROKEN,)), Fault.TOOL_ERROR),
        (
            sample(NOT_CALLED, actions=(), answer="I don't have a tool to look orders up."),
            Fault.MISSING_CAPABILITY,
        ),
        (
            sample(NOT_CALLED, failing("contains"), actions=(), answer="Sure."),
            Fault.EXPECTED_TOOL_NOT_CALLED,
        ),
        (
            sample(
                failing("not_contains"), failing("contains"), actions=(LOOKUP,), answer="I cannot."
            ),
            Fault.FORBIDDEN_CONTENT,
        ),
        (sample(failing("contains"), JUDGE, actions=(LOOKUP,)), Fault.MISSING_CONTENT),
        (sample(JUDGE, failing("token_budget", "budget"), actions=(LOOKUP,)), Fault.LOW_QUALITY),
        (
            sample(
                failing("token_budget", "budget"), failing("custom", "custom"), actions=(LOOKUP,)
            ),
            Fault.OVER_BUDGET,
        ),
    ],
    ids=[
        "effect>missing_content",
        "effect>forbidden_content",
        "effect>expected_tool",
        "effect>missing_capability",
        "effect>tool_error",
        "run_error>effect",
        "tool_error>expected_tool",
        "missing_capability>expected_tool",
        "expected_tool>content",
        "forbidden_content>missing_content",
        "content>low_quality",
        "low_quality>over_budget",
        "over_budget>check_failed",
    ],
)
def test_each_precedence_pair(result, expected):
    assert fault(result) is expected


@pytest.mark.parametrize(
    "actions",
    [
        (BROKEN,),  # a tool that errored, but the checks passed
        (Action("lookup_order", {"id": 9}, result={"error": None, "message": "order not found"}),),
    ],
)
def test_checks_passing_and_only_a_judge_failing_is_low_quality(actions):
    result = sample(
        passing("tools_called", "actions"),
        JUDGE,
        actions=actions,
        answer="I don't have a way to look up order 9: it was not found.",
    )
    assert fault(result) is Fault.LOW_QUALITY


@pytest.mark.parametrize(
    "result",
    [
        {"error": None, "message": "order not found"},
        {"error": "", "found": False},
        {"error": False},
        {"found": False, "detail": "error: no such order"},
        "ERROR: order not found in the index",
        '{"isError": false, "content": [{"type": "text", "text": "Order not found"}]}',
    ],
)
def test_a_correct_not_found_result_is_no_tool_error(result):
    call = Action("lookup_order", {"id": 9}, result=result)
    assert not call.failed and call.error is None
    answer_only = sample(failing("contains"), actions=(call,), answer="No such order.")
    assert fault(answer_only) is Fault.MISSING_CONTENT


@pytest.mark.parametrize(
    ("result", "error"),
    [
        ({"error": "order service down"}, "order service down"),
        ({"error": {"code": 503}}, '{"code": 503}'),
        ({"error": True, "detail": "x"}, '{"error": true, "detail": "x"}'),
        (
            {"isError": True, "content": [{"type": "text", "text": "bad"}]},
            "bad",  # an MCP error's detail is its text
        ),
        ('{"error": "boom"}', "boom"),
    ],
)
def test_a_result_reporting_an_error_at_its_top_level_is_a_tool_error(result, error):
    call = Action("lookup_order", {"id": 9}, result=result)
    assert call.failed and call.error == error
    assert fault(sample(failing("contains"), actions=(call,))) is Fault.TOOL_ERROR


def test_an_empty_or_false_recorded_error_is_no_error():
    assert Action("lookup_order", error="").error is None
    assert read(Action, {"name": "lookup_order", "error": ""}, "action").failed is False


def test_expected_tool_names_only_the_tools_not_called_and_never_as_missing_from_the_roster():
    facts = CaseFacts(
        "Refund order 7",
        ("lookup_order", "issue_refund"),
        settings={
            "tools_called": {"type": "ToolsCalled", "names": ["lookup_order", "issue_refund"]}
        },
    )
    found = diagnose(sample(NOT_CALLED, actions=(LOOKUP,)), facts, ROSTER)
    assert found is not None and found.fault is Fault.EXPECTED_TOOL_NOT_CALLED
    assert found.tools == ("issue_refund",)
    assert found.tools_label == EXPECTED_TOOLS
    assert found.recommendation.startswith("The agent has issue_refund but did not call it")
    assert "Give the agent" not in found.recommendation


def test_a_tool_the_roster_lacks_is_missing_and_one_it_has_is_to_be_called():
    facts = CaseFacts("Refund order 7", ("lookup_order", "cancel_order", "issue_refund"))
    roster = Roster({"issue_refund": "Refund an order", "lookup_policy": "Read a policy"})
    found = diagnose(sample(NOT_CALLED, actions=(REFUND,)), facts, roster)
    assert found is not None and found.tools == ("lookup_order", "cancel_order")
    assert found.tools_label == MISSING_TOOLS
    mixed = diagnose(sample(NOT_CALLED, actions=()), facts, roster)
    # The tool it has is to be called; the ones it lacks are carried apart, to be added.
    assert mixed is not None and mixed.tools == ("issue_refund",)
    assert mixed.tools_label == EXPECTED_TOOLS
    assert mixed.missing == ("lookup_order", "cancel_order")
    assert "Give the agent lookup_order and cancel_order" in mixed.recommendation
    assert "has issue_refund but did not call it" in mixed.recommendation


def test_without_a_roster_nothing_is_said_to_be_missing():
    facts = CaseFacts("Refund order 7", ("issue_refund",))
    found = diagnose(sample(NOT_CALLED, actions=(LOOKUP,)), facts, Roster())
    assert found is not None and found.tools_label == EXPECTED_TOOLS


def test_a_differing_trace_names_only_the_calls_not_made_as_expected():
    expected = (
        ExpectedAction("lookup_order", {"id": 7}),
        ExpectedAction("issue_refund", {"id": 7}),
    )
    facts = CaseFacts(
        "Refund order 7",
        ("lookup_order", "issue_refund"),
        expected_actions=expected,
        settings={"actions": {"type": "OrderedActions"}},
    )
    made = (LOOKUP, Action("issue_refund", {"id": "7"}))
    found = diagnose(sample(failing("actions", "actions"), actions=made), facts, ROSTER)
    assert found is not None and found.fault is Fault.EXPECTED_TOOL_NOT_CALLED
    assert found.tools == ("issue_refund",) and found.tools_label == EXPECTED_TOOLS


def diagnosed(
    case_id: str,
    tools: tuple[str, ...],
    label: str,
    recommendation: str = "r",
    missing: tuple[str, ...] = (),
) -> SampleResult:
    return SampleResult(
        case_id,
        "m",
        0,
        decide_status(None, (NOT_CALLED,)),
        answer="x",
        metrics=(NOT_CALLED,),
        fault="expected_tool_not_called",
        recommendation=recommendation,
        diagnosis=Diagnosis(tools, label, missing_tools=missing),
    )


def test_a_fix_item_never_lists_a_tool_the_agent_has_as_missing():
    from assay_agents.results.fixes import fix_items

    missing, expected = fix_items(
        [
            diagnosed("a", ("cancel_order",), MISSING_TOOLS),
            diagnosed("b", ("issue_refund",), EXPECTED_TOOLS),
            diagnosed("c", ("cancel_order",), MISSING_TOOLS),
        ]
    )
    assert [tool.name for tool in missing.tools] == ["cancel_order"]
    assert missing.tools_label == MISSING_TOOLS and missing.case_ids == ("a", "c")
    assert [tool.name for tool in expected.tools] == ["issue_refund"]
    assert expected.tools_label == EXPECTED_TOOLS and expected.case_ids == ("b",)
    [only_missing] = fix_items([diagnosed("a", ("cancel_order",), MISSING_TOOLS)])
    assert only_missing.tools_label == MISSING_TOOLS


def test_an_answer_of_invisible_characters_is_no_answer():
    found = diagnose(
        sample(failing("contains"), answer="\u200b\u2060 "), CaseFacts("Refund order 7"), ROSTER
    )
    assert found is not None and found.fault is Fault.RUN_ERROR
    assert found.recommendation.startswith("The agent returned no answer")


def test_a_sample_naming_tools_to_add_and_to_call_gives_two_fix_items():
    from assay_agents.results.fixes import fix_items

    facts = CaseFacts("Cancel order 7", ("lookup_order", "cancel_order"))
    finding = diagnose(sample(NOT_CALLED, actions=()), facts, ROSTER)
    assert finding is not None
    assert (finding.tools, finding.missing) == (("lookup_order",), ("cancel_order",))
    result = diagnosed(
        "cancel", finding.tools, str(finding.tools_label), finding.recommendation, finding.missing
    )
    stored = read_sample(write(result), "sample")
    assert stored.fault_missing_tools == ("cancel_order",)
    add, call = fix_items([stored])
    assert ([t.name for t in add.tools], add.tools_label) == (["cancel_order"], MISSING_TOOLS)
    assert add.recommendation == "Give the agent cancel_order: not among the agent's tools."
    assert ([t.name for t in call.tools], call.tools_label) == (["lookup_order"], EXPECTED_TOOLS)
    assert call.recommendation.startswith("The agent has lookup_order but did not call it")
    assert "cancel_order" not in call.recommendation


def test_tools_the_agent_has_but_did_not_call_are_named_in_agreement():
    facts = CaseFacts("Refund order 7", ("lookup_order", "issue_refund"))
    found = diagnose(sample(NOT_CALLED, actions=()), facts, ROSTER)
    assert found is not None
    assert found.recommendation.startswith(
        "The agent has lookup_order and issue_refund but did not call them ("
    )
    assert found.recommendation.endswith("say in its instructions when to use them.")


@pytest.mark.parametrize("spelling", ["Issue_Refund", "issue-refund", "ISSUE REFUND"])
def test_roster_names_compare_whatever_their_case_and_separators(spelling):
    assert ROSTER.has(spelling) and ROSTER.named(spelling) == "issue_refund"
    assert ROSTER.describe(spelling) == "Refund an order"
    assert not ROSTER.has("issue_refunds") and not ROSTER.has("cancel_order")
    facts = CaseFacts("Refund order 7", (spelling,))
    found = diagnose(sample(NOT_CALLED, actions=()), facts, ROSTER)
    assert found is not None and found.tools_label == EXPECTED_TOOLS and not found.missing


@pytest.mark.parametrize(
    ("recommendation", "tool", "adds"),
    [
        ("Add the issue_refund tool to the agent.", None, True),
        ("Give the agent an Issue-Refund tool.", None, True),
        ("First check the order. Then provide issue refund to the agent!", None, True),
        ("Add an Issue_Refund tool.", "Issue_Refund", True),
        ("Expose refunds.", "issue-refund", True),
        ("Add an instruction to call issue_refund after lookup_order.", None, False),
        ("Give the agent clearer guidance on when to use issue_refund.", None, False),
        ("Add a cancel_order tool.", "cancel_order", False),
        ("Tell the agent to call issue_refund.", None, False),
    ],
)
def test_a_refinement_adding_a_roster_tool_is_recognised(recommendation, tool, adds):
    from assay_agents.judging.refine import adds_a_tool_it_has
    from assay_agents.results.diagnosis import Refinement

    refinement = Refinement(recommendation, tool, "Refunds" if tool else None)
    assert adds_a_tool_it_has(refinement, ROSTER) is adds


def test_error_advice_quotes_the_first_line_whole_whatever_separators_it_holds() -> None:
    from assay_agents.results.diagnosis import run_error_advice

    advice = run_error_advice("boom\x0bhidden\x0cmore\u2028tail\x85end\nsecond line")
    assert "boom\x0bhidden\x0cmore\u2028tail\x85end" in advice  # shown as escapes on display
    assert "second line" not in advice
