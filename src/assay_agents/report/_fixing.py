"""The reading of faults every format shares: fix items, the verdict, the case × model matrix.

A report may know more than the run: ``tool_resolver`` says which server is behind a tool and
whether it is enabled, ``links`` gives route templates for the actions, ``agent_name`` how an
item names the agent. Whatever they supply is rendered; without them an action keeps its
label and hint with no path.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.report import format as fmt
from assay_agents.results import Run, RunSummary, SampleResult, SampleStatus
from assay_agents.results.diagnosis import (
    ERRORED_TOOLS,
    EXPECTED_TOOLS,
    FAULT_ORDER,
    MISSING_TOOLS,
    SUGGESTED_TOOLS,
)
from assay_agents.results.fixes import FixItem, FixTool, fix_items
from assay_agents.spec import JSON

ToolResolver = Callable[[str], Mapping[str, Any] | None]

#: How each fault reads as a heading.
FAULT_TITLES = {
    "run_error": "Run error",
    "tool_error": "Tool error",
    "missing_capability": "Missing capability",
    "expected_tool_not_called": "Expected tool not called",
    "ungrounded_answer": "Ungrounded answer",
    "forbidden_content": "Forbidden content",
    "missing_content": "Missing content",
    "forbidden_effect": "Forbidden effect",
    "low_quality": "Low quality",
    "over_budget": "Over budget",
    "check_failed": "Check failed",
    "metric_error": "Metric error",
}
_INSTRUCTION_FAULTS = {
    "ungrounded_answer",
    "forbidden_content",
    "missing_content",
    "forbidden_effect",
    "low_quality",
}


@dataclass(frozen=True, slots=True)
class FixContext:
    """What a report knows beyond the run: servers behind tools, routes, the agent's name."""

    tool_resolver: ToolResolver | None = None
    agent_name: str = "the agent"
    links: Mapping[str, str] = field(default_factory=dict)


def resolved_items(
    samples: Sequence[SampleResult], context: FixContext, model: str | None = None
) -> list[FixItem]:
    """The run's fix items, each with its tools' servers, a note and an action."""
    return [_resolved(item, context) for item in fix_items(samples, model)]


def _resolved(item: FixItem, context: FixContext) -> FixItem:
    tools = tuple(
        dataclasses.replace(tool, server=_server(tool.name, context)) for tool in item.tools
    )
    server = next((tool.server for tool in tools if tool.server is not None), None)
    return dataclasses.replace(
        item,
        tools=tools,
        server=server,
        note=_note(item, tools, context),
        action=_action(item, tools, server, context),
    )


def _server(name: str, context: FixContext) -> Mapping[str, JSON] | None:
    if context.tool_resolver is None:
        return None
    try:
        found = context.tool_resolver(name)
    except Exception:
        return None  # a resolver that fails tells nothing about the tool
    if not isinstance(found, Mapping):
        return None
    return {key: found.get(key) for key in ("key", "name", "status")}


def _note(item: FixItem, tools: Sequence[FixTool], context: FixContext) -> str | None:
    if item.tools_label not in (MISSING_TOOLS, SUGGESTED_TOOLS):
        return None
    available = [tool for tool in tools if tool.server and tool.server.get("status") == "available"]
    if available:
        server = available[0].server or {}
        return (
            f"{', '.join(t.name for t in available)} exists on {server.get('name')} but is "
            f"not enabled for {context.agent_name}"
        )
    return None


def _action(
    item: FixItem, tools: Sequence[FixTool], server: Mapping[str, JSON] | None, context: FixContext
) -> dict[str, JSON] | None:
    agent, names = context.agent_name, ", ".join(tool.name for tool in tools)
    if item.kind == "instruction" or (item.fault in _INSTRUCTION_FAULTS and not tools):
        return _link(
            f"Edit the instructions of {agent}",
            "Instructions ->",
            "instructions",
            context,
            server,
            names,
        )
    if item.tools_label == EXPECTED_TOOLS:
        return _link(
            f"Tell {agent} when and how to call {names}",
            "Instructions ->",
            "instructions",
            context,
            server,
            names,
        )
    if item.tools_label == ERRORED_TOOLS:
        return _link(f"Fix {names}", "Tools ->", "tools", context, server, names)
    if not tools:
        return None
    status = None if server is None else server.get("status")
    if status == "available":
        return _link(
            f"Enable {server.get('name') if server else ''} for {agent}",
            "MCP Services ->",
            "mcp",
            context,
            server,
            names,
        )
    if status == "enabled":
        return _link(
            f"Tell {agent} when to use {names}",
            "Instructions ->",
            "instructions",
            context,
            server,
            names,
        )
    return _link(f"Add {names} to {agent}", "Tools ->", "tools", context, server, names)


def _link(
    label: str,
    hint: str,
    route: str,
    context: FixContext,
    server: Mapping[str, JSON] | None,
    tools: str,
) -> dict[str, JSON]:
    template = context.links.get(route)
    values = {"agent": context.agent_name, "tool": tools.split(", ")[0] if tools else ""}
    if server is not None and server.get("key") is not None:
        values["key"] = str(server.get("key"))
    path = None
    if template:
        try:
            path = template.format(**values)
        except (KeyError, IndexError, ValueError):
            path = None  # the template needs something this item does not have
    return {"label": label, "hint": hint, "path": path}


def ordered_faults(faults: Mapping[str, int]) -> list[tuple[str, int]]:
    """Fault counts in the order faults are assigned (stored JSON keeps no order)."""
    order = {fault.value: index for index, fault in enumerate(FAULT_ORDER)}
    return sorted(faults.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def fault_counts(faults: Mapping[str, int]) -> str:
    """``missing_content 2 · low_quality 1``, or ``none``."""
    return " · ".join(f"{name} {count}" for name, count in ordered_faults(faults)) or "none"


VERDICT_HEADERS = ["model", "pass rate", "check score", "faults"]


def verdict_rows(summary: RunSummary, frac: Callable[[int, int], str]) -> list[list[str]]:
    """One row per model: what the verdict rests on (never its cost)."""
    return [
        [label, frac(t.passed, t.evaluated), fmt.score(t.check_score), fault_counts(t.faults)]
        for label, t in summary.by_model.items()
    ]


def matrix(run: Run) -> tuple[list[str], list[list[str]]]:
    """The case × model matrix: passing samples of each case on each model, and the fault."""
    models: list[str | None] = list(dict.fromkeys(s.model for s in run.samples)) or [None]
    # One pass over the samples, so a run of many cases and models stays linear.
    cells: dict[tuple[str, str | None], list[SampleResult]] = {}
    for sample in run.samples:
        cells.setdefault((sample.case_id, sample.model), []).append(sample)
    cases = dict.fromkeys(c.case_id for c in sorted(run.cases, key=lambda c: c.position))
    cases.update(dict.fromkeys(s.case_id for s in run.samples))
    headers = ["case", *[model or "result" for model in models]]
    rows = [
        [case_id, *(_cell(cells.get((case_id, model), ())) for model in models)]
        for case_id in cases
    ]
    return headers, rows


def _cell(samples: Sequence[SampleResult]) -> str:
    passed = sum(1 for s in samples if s.status is SampleStatus.PASSED)
    faults = Counter(str(s.fault) for s in samples if s.fault)
    return matrix_cell(passed, len(samples), tuple(faults.items()))


def matrix_cell(passed: int, samples: int, faults: Sequence[tuple[str, int]] = ()) -> str:
    """A matrix cell from counts: ``pass 3/3``, ``fail 1/3 · missing_content``, ``—`` for none.

    ``faults`` holds each fault with its count, in the order the cell's samples first show
    them: the most common is named, the first shown among equals (as ``Counter`` ranks them).
    """
    if samples == 0:
        return fmt.MISSING
    word = "pass" if passed == samples else "fail"
    common = max(faults, key=lambda fault: fault[1], default=None)
    tail = "" if common is None else f" · {common[0]}"
    return f"{word} {passed}/{samples}{tail}"


def run_judge_usage(run: Run) -> str:
    """The judge calls no sample owns (the verdict): ``1 call (verdict) · $0.0002``, or ''."""
    usage = run.judge_usage
    if usage is None or usage.calls == 0:
        return ""
    named = ", ".join(usage.by_kind)
    money = fmt.money(usage.cost_usd, estimated=usage.cost_estimated)
    noun = "call" if usage.calls == 1 else "calls"
    return f"{usage.calls} {noun}{f' ({named})' if named else ''} · {money}, not any sample's"
