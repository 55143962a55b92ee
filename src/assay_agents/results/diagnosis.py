"""Diagnosis: one fault per failing or errored sample, with a recommendation from the evidence.

Faults are assigned in a fixed order, the most mechanical cause first (:data:`FAULT_ORDER`):
an agent that did not run to an answer, an effect the case forbids (the harm itself, so it
outranks every finding about how the agent reasoned or answered), a tool that errored, a
capability the agent says it lacks, an expected tool not called, an answer stating specifics
nothing supplied, content, and then the judge's quality criteria. Assay adds three kinds after
those for the rest of what checks can find: a budget exceeded, another check failed, a metric
that could not be calculated. A sample whose checks all passed and whose only failure is a
judge criterion is ``low_quality`` whatever else its outcome shows: the judge's grade is the
only evidence it fell short. Everything here reads values (the sample, the case's expectations
as strings, the agent's tool roster); nothing calls a model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from assay_agents.results.diagnosed import Refinement as Refinement
from assay_agents.results.fault import FAULT_ORDER as FAULT_ORDER
from assay_agents.results.fault import Fault as Fault
from assay_agents.results.metric import MetricResult
from assay_agents.results.sample import SampleResult, SampleStatus
from assay_agents.spec import JSON, ExpectedAction, canonical_json
from assay_agents.text import blank, lines_of

#: Faults a judge may refine with the tool to add or the instruction to change.
REFINABLE: frozenset[Fault] = frozenset(
    {
        Fault.MISSING_CAPABILITY,
        Fault.EXPECTED_TOOL_NOT_CALLED,
        Fault.UNGROUNDED_ANSWER,
        Fault.MISSING_CONTENT,
        Fault.LOW_QUALITY,
    }
)

#: Labels for the tools a finding involves.
MISSING_TOOLS = "missing tools"
ERRORED_TOOLS = "tools that errored"
EXPECTED_TOOLS = "expected tools"
SUGGESTED_TOOLS = "tools the judge suggested"

_QUOTE = 160


@dataclass(frozen=True, slots=True)
class Roster:
    """What the agent was given: its tools (name → description) and its instructions."""

    tools: Mapping[str, str] = field(default_factory=dict)
    instructions: str | None = None

    def named(self, name: str) -> str | None:
        """The roster's own spelling of tool ``name``, or ``None`` when it has no such tool.

        Names compare as one tool whatever their case and ``-``/``_`` separators
        (``Issue-Refund`` is ``issue_refund``): a judge or a case spelling a tool the agent
        has differently must never read as the agent lacking it.
        """
        key = tool_key(name)
        return next((tool for tool in self.tools if tool_key(tool) == key), None)

    def has(self, name: str) -> bool:
        """Whether the roster holds tool ``name`` (see :meth:`named`)."""
        return self.named(name) is not None

    def describe(self, name: str) -> str | None:
        """The description of a tool in the roster, or ``None`` when it is not there."""
        found = self.named(name)
        return None if found is None else self.tools[found]


def tool_key(name: str) -> str:
    """A tool name as roster lookups compare it: case-folded, separators as ``_``."""
    return _SEPARATORS.sub("_", name.strip()).casefold()


_SEPARATORS = re.compile(r"[-_\s]+")


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What a case expected, as values: the question, expected tools and calls, check settings.

    ``settings`` maps each planned metric's name to its portable settings (``{"type":
    "Contains", "text": "30 days"}``); ``reference`` is the expected answer as text;
    ``expected_actions`` the exact calls the case expects, when it declares them.
    """

    question: str
    expected_tools: tuple[str, ...] = ()
    expected_actions: tuple[ExpectedAction, ...] = ()
    settings: Mapping[str, Mapping[str, JSON]] = field(default_factory=dict)
    reference: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """A sample's fault, the recommendation it calls for, and the tools involved."""

    fault: Fault
    recommendation: str
    tools: tuple[str, ...] = ()
    tools_label: str | None = None
    #: Tools the agent lacks, beside ``tools`` it has and is to call: filed apart, to add.
    missing: tuple[str, ...] = ()


def diagnose(
    sample: SampleResult, facts: CaseFacts, roster: Roster | None = None
) -> Finding | None:
    """The first fault that applies to a failing or errored sample; ``None`` for the others."""
    if sample.status not in (SampleStatus.FAILED, SampleStatus.ERROR):
        return None
    roster = roster or Roster()
    for rule in _RULES:
        finding = rule(sample, facts, roster)
        if finding is not None:
            return finding
    return Finding(
        Fault.CHECK_FAILED,
        "Look at the failing sample's metrics: none of them names what fell short.",
    )


# -- the rules, in precedence order -------------------------------------------------------


def _run_error(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    if sample.error is not None:
        return Finding(Fault.RUN_ERROR, run_error_advice(sample.error))
    if blank(sample.answer):
        return Finding(
            Fault.RUN_ERROR,
            "The agent returned no answer: make sure it returns its final message as the answer.",
        )
    return None


def run_error_advice(error: str) -> str:
    """A recommendation chosen from an agent error: timeout, context, rate limit, key, other."""
    quoted = _quote(lines_of(error)[0] if error.strip() else error)
    lowered = error.lower()
    if "timed out" in lowered or "timeout" in lowered:
        return (
            f"The agent did not finish in time ({quoted}): raise the timeout, or cap its "
            "turns and the work each tool does."
        )
    if _CONTEXT.search(error):
        return (
            f"The conversation outgrew the model's context window ({quoted}): trim the "
            "history and tool results the agent passes to the model."
        )
    if _RATE.search(error):
        return (
            f"The provider refused for rate ({quoted}): lower --concurrency or "
            "--model-concurrency, or raise the account's limits."
        )
    if error.startswith("KeyError"):
        return (
            f"The agent looked up a key that was not there ({quoted}): a bug in the "
            "agent's own code or data, not a credential."
        )
    if _CREDENTIALS.search(error):
        return (
            f"The agent could not authenticate with its provider ({quoted}): set the "
            "provider's API key in the environment the run uses."
        )
    if error.startswith(("ReplayError", "replay")) or "api_replay" in error:
        return (
            f"The agent's HTTP requests did not match the case's declared API fixtures "
            f"({quoted}): fix the request the agent makes, or the declaration."
        )
    return f"The agent failed before answering ({quoted}): fix that error first."


_CONTEXT = re.compile(
    r"(?i)context[_ ]length|context window|maximum context|too many tokens|"
    r"prompt is too long|token limit"
)
_RATE = re.compile(r"(?i)rate[_ ]?limit|\b429\b|too many requests|quota")
_CREDENTIALS = re.compile(r"(?i)api[_ ]?key|authenticat|unauthori[sz]ed|\b401\b|credential")


def _judge_only(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    """``low_quality`` when every check passed and only a judge criterion fell short."""
    checks_fell_short = any(
        m.kind != "judge" and (m.error is not None or not m.passed) for m in sample.metrics
    )
    if checks_fell_short:
        return None
    return _low_quality(sample, facts, roster)


def _tool_error(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failed = [action for action in sample.actions or () if action.failed]
    if not failed:
        return None
    names = tuple(dict.fromkeys(action.name for action in failed))
    first = failed[0]
    return Finding(
        Fault.TOOL_ERROR,
        f"Fix {first.name}: it returned an error ({_quote(first.error or '')}).",
        names,
        ERRORED_TOOLS,
    )


_MISSING_CAPABILITY = re.compile(
    r"(?i)\b(?:(?:do(?:es)?n['’]?t|do(?:es)? not|don['’]t) have (?:a |an |any |the )?"
    r"(?:tool|function|capabilit|access|way to)|no (?:tool|function|capability) "
    r"(?:is |that |to |for |which |available)|(?:not|isn['’]t) (?:able|equipped) to "
    r"(?:access|look|check|retrieve)|(?:can['’]?not|can['’]t|unable to) (?:access|look up|"
    r"check|retrieve|perform)|outside (?:of )?my (?:capabilities|tools)|without (?:a|the) tool)"
)


def _missing_capability(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    answer = sample.answer or ""
    said = _MISSING_CAPABILITY.search(answer)
    if said is None:
        return None
    absent = tuple(name for name in facts.expected_tools if not roster.has(name))
    sentence = _sentence_around(answer, said.start())
    if absent:
        return Finding(
            Fault.MISSING_CAPABILITY,
            f"Give the agent {_names(absent)}: it said {_quote(sentence)}.",
            absent,
            MISSING_TOOLS,
        )
    if facts.expected_tools and roster.tools:
        cover = "it covers" if len(facts.expected_tools) == 1 else "they cover"
        return Finding(
            Fault.MISSING_CAPABILITY,
            f"The agent has {_listed(facts.expected_tools)} but said "
            f"{_quote(sentence)}: say in its instructions what {cover}.",
            facts.expected_tools,
            EXPECTED_TOOLS,
        )
    return Finding(
        Fault.MISSING_CAPABILITY,
        f"Add a tool that covers {_quote(facts.question)}: the agent said {_quote(sentence)}.",
    )


def _expected_tool(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    called = {action.name for action in sample.actions or ()}
    missing = tuple(name for name in facts.expected_tools if name not in called)
    if sample.actions is not None and missing:
        return _not_called(missing, roster)
    trace = _first_failing(
        sample,
        lambda m: (
            m.category == "actions" and _kind(facts, m) not in ("ForbidActions", "ToolsSucceeded")
        ),
    )
    if trace is None:
        return None
    # Only the expected calls the agent did not make as expected; all of them when it made
    # every one, but in another order or among extra calls.
    involved = _miscalled(facts.expected_actions, sample) or facts.expected_tools
    return Finding(
        Fault.EXPECTED_TOOL_NOT_CALLED,
        f"Make the calls the case expects: {trace.reason or 'the trace differs'}.",
        involved,
        EXPECTED_TOOLS,
    )


def _miscalled(expected: Sequence[ExpectedAction], sample: SampleResult) -> tuple[str, ...]:
    made = {(a.group, a.name, canonical_json(a.arguments)) for a in sample.actions or ()}
    return tuple(
        dict.fromkeys(
            a.name for a in expected if (a.group, a.name, canonical_json(a.arguments)) not in made
        )
    )


def _not_called(missing: Sequence[str], roster: Roster) -> Finding:
    """Expected tools not called: those a known roster lacks are to be added, apart.

    A tool the agent has is to be called (``expected tools``); one a known roster lacks is to
    be added (``missing tools``). When a case expected both kinds, the finding names the tools
    to call and carries the ones to add in ``missing``, so neither reads as the other.
    """
    if not roster.tools:
        return Finding(
            Fault.EXPECTED_TOOL_NOT_CALLED,
            f"Make sure the agent calls {_listed(missing)} for this task.",
            tuple(missing),
            EXPECTED_TOOLS,
        )
    absent = tuple(name for name in missing if not roster.has(name))
    present = tuple(name for name in missing if roster.has(name))
    if not present:
        return Finding(
            Fault.EXPECTED_TOOL_NOT_CALLED, missing_tools_advice(absent), absent, MISSING_TOOLS
        )
    advice = _uncalled_advice(present, roster)
    if absent:
        advice = f"{missing_tools_advice(absent)} {advice}"
    return Finding(Fault.EXPECTED_TOOL_NOT_CALLED, advice, present, EXPECTED_TOOLS, missing=absent)


def missing_tools_advice(absent: Sequence[str]) -> str:
    """What to do about expected tools a known roster lacks: give them to the agent."""
    return f"Give the agent {_listed(absent)}: not among the agent's tools."


def _uncalled_advice(present: Sequence[str], roster: Roster) -> str:
    described = "; ".join(f"{name}: {_quote(roster.describe(name) or '')}" for name in present)
    it = "it" if len(present) == 1 else "them"
    return (
        f"The agent has {_listed(present)} but did not call {it} ({described}): say in "
        f"its instructions when to use {it}."
    )


# A count, an id, an amount or a date: digits are what an answer cannot make up honestly.
_SPECIFIC = re.compile(
    r"[$€£]\s?\d[\d,.]*|#?\b[A-Za-z]*-?\d[\w-]*|\b\d{1,2}[:/.]\d{1,2}"
    r"(?:[:/.]\d{2,4})?\b"
)


def _ungrounded(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    if not roster.tools or sample.actions != () or not sample.answer:
        return None
    supplied = f"{facts.question}\n{roster.instructions or ''}"
    stated = [
        m.group()
        for m in _SPECIFIC.finditer(sample.answer)
        if _digits(m.group()) and _digits(m.group()) not in _digits(supplied)
    ]
    if not stated:
        return None
    return Finding(
        Fault.UNGROUNDED_ANSWER,
        f"The agent stated {_quote(stated[0])} without calling any of its tools "
        f"({_names(sorted(roster.tools))}): instruct it to look such facts up, or "
        "to say it cannot.",
    )


def _digits(text: str) -> str:
    return "".join(char for char in text if char.isdigit())


def _content(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failing = [m for m in sample.metrics if _failed(m) and m.category == "content"]
    forbidden = [m for m in failing if _kind(facts, m) == "NotContains"]
    if forbidden:
        text = facts.settings.get(forbidden[0].name, {}).get("text")
        return Finding(
            Fault.FORBIDDEN_CONTENT,
            f"The answer must not say {_quote(str(text))}: change the instructions "
            "or the tool result that leads to it.",
        )
    if failing:
        return Finding(Fault.MISSING_CONTENT, _content_advice(failing[0], facts))
    return None


def _content_advice(metric: MetricResult, facts: CaseFacts) -> str:
    settings = facts.settings.get(metric.name, {})
    kind = settings.get("type")
    if kind == "Contains":
        return f"The answer must contain {_quote(str(settings.get('text')))}."
    if kind == "ExactMatch" and facts.reference is not None:
        return f"The answer must be {_quote(facts.reference)}: {metric.reason or 'it differs'}."
    if kind == "Regex":
        return f"The answer must match /{settings.get('pattern')}/."
    return f"The answer fails {metric.name}: {metric.reason or 'see the metric'}."


def _effect(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failing = _first_failing(
        sample, lambda m: m.category == "side_effects" or _kind(facts, m) == "ForbidActions"
    )
    if failing is None:
        return None
    return Finding(
        Fault.FORBIDDEN_EFFECT,
        f"The agent's effects broke {failing.name}: {failing.reason or 'see the metric'}.",
    )


def _low_quality(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failing = _first_failing(sample, lambda m: m.kind == "judge")
    if failing is None:
        return None
    # The score and its minimum stand beside the metric in every report, written there by the
    # one formatting module; the stored advice names the shortfall and the judge's reason.
    scored = "got no score" if failing.score is None else "scored below its minimum"
    return Finding(
        Fault.LOW_QUALITY,
        f"{failing.name} {scored}: {failing.reason or 'the judge gave no reason'}.",
    )


def _budget(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failing = _first_failing(sample, lambda m: m.category == "budget")
    if failing is None:
        return None
    return Finding(
        Fault.OVER_BUDGET,
        f"Bring {failing.name} within budget: {failing.reason or 'over the limit'}.",
    )


def _check(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    failing = _first_failing(sample)
    if failing is None:
        return None
    return Finding(
        Fault.CHECK_FAILED, f"{failing.name} failed: {failing.reason or 'see the metric'}."
    )


def _metric_error(sample: SampleResult, facts: CaseFacts, roster: Roster) -> Finding | None:
    broken = next((m for m in sample.metrics if m.error is not None), None)
    if broken is None:
        return None
    return Finding(
        Fault.METRIC_ERROR,
        f"{broken.name} could not be calculated ({_quote(broken.error or '')}): fix what it needs.",
    )


_RULES = (
    _run_error,
    _judge_only,
    _effect,
    _tool_error,
    _missing_capability,
    _expected_tool,
    _ungrounded,
    _content,
    _low_quality,
    _budget,
    _check,
    _metric_error,
)


# -- helpers --------------------------------------------------------------------------------


def _failed(metric: MetricResult) -> bool:
    return metric.error is None and not metric.passed


def _first_failing(
    sample: SampleResult, where: Callable[[MetricResult], bool] = lambda _: True
) -> MetricResult | None:
    """The first metric that ran and failed, among those ``where`` accepts."""
    return next((m for m in sample.metrics if _failed(m) and where(m)), None)


def _kind(facts: CaseFacts, metric: MetricResult) -> str | None:
    kind = facts.settings.get(metric.name, {}).get("type")
    return kind if isinstance(kind, str) else None


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: tool names as a sentence lists them."""
    if len(names) < 2:
        return _names(names)
    return f"{_names(names[:-1])} and {names[-1]}"


_BLANKS = re.compile(r"[^\S\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")


def _quote(text: str) -> str:
    # Blanks and newlines fold; a VT, FF or U+2028 stays, to be shown as its escape.
    shown = _BLANKS.sub(" ", text).strip(" ")
    if len(shown) > _QUOTE:
        shown = shown[:_QUOTE].rstrip() + "…"
    return f"“{shown}”"


def _sentence_around(text: str, index: int) -> str:
    start = max(text.rfind(mark, 0, index) for mark in (".", "!", "?", "\n")) + 1
    ends = [end for end in (text.find(mark, index) for mark in (".", "!", "?", "\n")) if end >= 0]
    return text[start : (min(ends) + 1 if ends else len(text))].strip()
