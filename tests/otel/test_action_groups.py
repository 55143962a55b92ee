"""Spans name no group; a suite's ``action_groups`` gives captured calls theirs."""

from __future__ import annotations

import pytest

import assay_agents as assay
from assay_agents.errors import SpecError

pytest.importorskip("opentelemetry.sdk")


def _traced_agent(text: str) -> str:
    from opentelemetry import trace

    tracer = trace.get_tracer("framework")
    with tracer.start_as_current_span(
        "execute_tool lookup_policy",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup_policy",
            "gen_ai.tool.call.arguments": '{"topic": "returns"}',
        },
    ):
        pass
    return "30 days."


@pytest.mark.parametrize(
    ("groups", "status"), [({"lookup_policy": "policies"}, "passed"), (None, "failed")]
)
def test_captured_calls_take_the_group_the_suite_names(groups, status):
    suite = assay.Suite("Grouped", agent=_traced_agent, capture="spans", action_groups=groups)
    suite.case(
        "How long?",
        id="returns",
        expected_actions=[
            {"group": "policies", "name": "lookup_policy", "arguments": {"topic": "returns"}}
        ],
    )
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, trace=False)
    (sample,) = run.samples
    assert sample.status == status
    expected_group = None if groups is None else "policies"
    assert [(a.group, a.name) for a in sample.actions or ()] == [(expected_group, "lookup_policy")]


@pytest.mark.parametrize("groups", [{"lookup_policy": ""}, {"": "x"}, ["a"], {"a": 1}])
def test_bad_action_groups_are_refused_naming_the_field(groups):
    with pytest.raises(SpecError, match="action_groups"):
        assay.Suite("Grouped", agent=_traced_agent, action_groups=groups)
