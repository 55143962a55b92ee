"""What to fix: a run's faults grouped across cases and models into the fixes they call for.

One item per fault kind, in the order faults are assigned, then one per distinct instruction
change a judge proposed. Tools the agent lacks are a fix of their own: a fault kind whose
samples name both tools to add and tools the agent has but did not call gives two items, the
tools to add (``missing tools``) first, then the tools to call (``expected tools``), each with
its own recommendation and action, so neither reads as the other. Each names its cases and
models, how many samples it speaks for, the recommendation, the quoted instruction change, and
the tools involved under a label that says which (missing tools, tools that errored, tools the
judge suggested).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from assay_agents.results.diagnosis import (
    FAULT_ORDER,
    MISSING_TOOLS,
    SUGGESTED_TOOLS,
    Refinement,
    missing_tools_advice,
)
from assay_agents.results.sample import SampleResult
from assay_agents.spec import JSON


@dataclass(frozen=True, slots=True)
class FixTool:
    """A tool an item involves: its name, a note (the judge's description) and its server."""

    name: str
    note: str | None = None
    server: Mapping[str, JSON] | None = None


class Also(NamedTuple):
    """Another recommendation an item's samples made, with the cases that made it."""

    recommendation: str
    case_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FixItem:
    """One fix: what it is about, whom it speaks for, what to do, and with which tools.

    ``kind`` is ``fault`` (one per fault kind) or ``instruction`` (one per distinct
    instruction change). ``recommendation`` is the one most samples share; ``also`` lists
    the other distinct recommendations with their cases. ``server``, ``note`` and ``action``
    are filled in by a report that knows the tools' servers and its routes.
    """

    kind: str
    fault: str
    count: int
    case_ids: tuple[str, ...]
    models: tuple[str, ...]
    recommendation: str
    quote: str | None = None
    tools_label: str | None = None
    tools: tuple[FixTool, ...] = ()
    also: tuple[Also, ...] = ()
    server: Mapping[str, JSON] | None = None
    note: str | None = None
    action: Mapping[str, JSON] | None = field(default=None)


def fix_items(samples: Iterable[SampleResult], model: str | None = None) -> list[FixItem]:
    """The fix items of ``samples`` (only ``model``'s, when given), in recommendation order."""
    chosen = [s for s in samples if s.fault is not None and (model is None or s.model == model)]
    order = {fault.value: index for index, fault in enumerate(FAULT_ORDER)}
    faults = sorted(
        {s.fault for s in chosen if s.fault}, key=lambda name: (order.get(name, len(order)), name)
    )
    items: list[FixItem] = []
    for fault in faults:
        samples = [s for s in chosen if s.fault == fault]
        items += _missing_item(fault, samples)
        rest = [s for s in samples if _adds_only(s) is None]
        if rest:
            items.append(_fault_item(fault, rest))
    return items + _instruction_items(chosen, order)


def _adds_only(sample: SampleResult) -> tuple[str, ...] | None:
    """The tools a sample's agent lacks when that is all its finding names; else ``None``."""
    if sample.fault_tools_label == MISSING_TOOLS and sample.fault_tools:
        return sample.fault_tools
    return None


def _missing_item(fault: str, samples: Sequence[SampleResult]) -> list[FixItem]:
    """One item for the tools the agent lacks: apart from tools it has, which are to be called.

    A sample whose finding names only tools the agent lacks belongs here whole; one that also
    names tools it has and did not call lends this item its ``fault_missing_tools`` and stays
    in the fault's other item for the rest.
    """
    involved = [s for s in samples if _adds_only(s) or s.fault_missing_tools]
    if not involved:
        return []
    names = _unique(n for s in involved for n in (_adds_only(s) or s.fault_missing_tools))
    whole = [s for s in involved if _adds_only(s)]
    texts = _ranked(whole)
    if len(whole) < len(involved):
        # A sample's recommendation also says what to call: this item says only what to add.
        advice = missing_tools_advice(names)
        texts = [Also(advice, _cases(involved)), *(t for t in texts if t[0] != advice)]
    return [
        FixItem(
            "fault",
            fault,
            len(involved),
            _cases(involved),
            _models(involved),
            texts[0][0],
            None,
            MISSING_TOOLS,
            tuple(FixTool(name) for name in names),
            tuple(texts[1:]),
        )
    ]


def _fault_item(fault: str, samples: Sequence[SampleResult]) -> FixItem:
    texts = _ranked(samples, strip_missing=True)
    tools = tuple(FixTool(name) for name in _unique(n for s in samples for n in s.fault_tools))
    labels = Counter(s.fault_tools_label for s in samples if s.fault_tools)
    label = labels.most_common(1)[0][0] if labels else None
    if not tools:
        tools = _suggested(samples)
        label = SUGGESTED_TOOLS if tools else None
    return FixItem(
        "fault",
        fault,
        len(samples),
        _cases(samples),
        _models(samples),
        texts[0][0],
        None,
        label,
        tools,
        tuple(texts[1:]),
    )


def _instruction_items(samples: Sequence[SampleResult], order: Mapping[str, int]) -> list[FixItem]:
    grouped: dict[str, list[SampleResult]] = {}
    for sample in samples:
        refinement = _refinement(sample)
        if refinement is not None and refinement.instruction:
            grouped.setdefault(" ".join(refinement.instruction.split()), []).append(sample)
    items = []
    for quote, group in grouped.items():
        texts = _ranked(group)
        tools = _suggested(group)
        items.append(
            FixItem(
                "instruction",
                str(group[0].fault),
                len(group),
                _cases(group),
                _models(group),
                texts[0][0],
                quote,
                SUGGESTED_TOOLS if tools else None,
                tools,
                tuple(texts[1:]),
            )
        )
    return sorted(items, key=lambda item: (order.get(item.fault, len(order)), -item.count))


def _refinement(sample: SampleResult) -> Refinement | None:
    return sample.refinement


def _suggested(samples: Sequence[SampleResult]) -> tuple[FixTool, ...]:
    found: dict[str, str | None] = {}
    for sample in samples:
        refinement = _refinement(sample)
        if refinement is not None and refinement.tool_name:
            found.setdefault(refinement.tool_name, refinement.tool_description)
    return tuple(FixTool(name, note) for name, note in found.items())


def _ranked(samples: Sequence[SampleResult], strip_missing: bool = False) -> list[Also]:
    """Distinct recommendations, the most shared first, each with its cases.

    With ``strip_missing``, the advice to add the tools a sample's agent lacks is left out:
    that advice is the missing tools' own item.
    """
    cases: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    for sample in samples:
        text = sample.recommendation or "No recommendation was recorded."
        if strip_missing and sample.fault_missing_tools:
            text = text.removeprefix(missing_tools_advice(sample.fault_missing_tools) + " ")
        counts[text] += 1
        cases.setdefault(text, [])
        if sample.case_id not in cases[text]:
            cases[text].append(sample.case_id)
    return [Also(text, tuple(cases[text])) for text, _ in counts.most_common()]


def _cases(samples: Sequence[SampleResult]) -> tuple[str, ...]:
    return _unique(s.case_id for s in samples)


def _models(samples: Sequence[SampleResult]) -> tuple[str, ...]:
    return _unique(s.model for s in samples if s.model is not None)


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))
