r"""The JUnit XML report: a run as the test results Jenkins, GitLab and GitHub show.

One ``<testsuite>`` per model (named after it; after the suite when the run named no model),
one ``<testcase>`` per case in it (``classname`` the suite, ``name`` the case id). A case's
samples decide its outcome, the worst first: ``<error>`` when any errored (the agent's error
and traceback, or the metric that could not be calculated), ``<failure>`` when any failed
(the failed metrics with their reasons, the fault and what to do about it), ``<skipped>``
when any was not evaluated, else it passed. The counts and times are those of the testcases,
so ``tests`` is the model's cases, and with one sample per case ``failures``, ``errors`` and
``skipped`` are its failed, errored and not-evaluated samples; ``time`` is the samples'
durations added up, in seconds.

Each sample is a ``<property>`` of its testsuite (``refund sample 0`` → ``failed · 1.48 s ·
~$0.0243``) and its answer and actions are the testcase's ``<system-out>``: the schema Jenkins
validates against gives a testcase no properties of its own.

The document is built with :mod:`xml.etree.ElementTree`, which escapes markup. What XML 1.0
cannot hold at all (NUL and the other C0 controls, lone surrogates, U+FFFE and U+FFFF) and what
a terminal or a page would act on (C1 and bidirectional controls) is written as a visible
escape, ``\x1b`` or ``\ud800``: never dropped, never raw.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from assay_agents.report import format as fmt
from assay_agents.report.view import CasesSection, ReportView, SampleView, written
from assay_agents.results import SampleStatus
from assay_agents.text import lines_of, visible

__all__ = ["junit_of"]

_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
# What visible() leaves that XML 1.0 forbids: surrogates and the two non-characters.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    r"""``text`` as XML 1.0 can hold it, every control character a visible escape (``\x1b``)."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", visible(text, lines=True))


@dataclass(frozen=True, slots=True)
class _Case:
    """One case's samples on one model."""

    case_id: str
    samples: tuple[SampleView, ...]

    @property
    def outcome(self) -> SampleStatus:
        statuses = {view.sample.status for view in self.samples}
        for status in (SampleStatus.ERROR, SampleStatus.FAILED, SampleStatus.NOT_EVALUATED):
            if status in statuses:
                return status
        return SampleStatus.PASSED

    @property
    def seconds(self) -> Decimal:
        return sum((_seconds(v.sample.duration_ms) for v in self.samples), start=Decimal(0))


def junit_of(view: ReportView) -> str:
    """The JUnit XML document of a view, with its declaration, ending with a newline."""
    suite = view.run.suite
    root = ET.Element("testsuites", name=xml_text(f"Assay: {suite}"))
    suites = [_testsuite(view, model, cases) for model, cases in _by_model(view)]
    root.extend(suites)
    for name in ("tests", "failures", "errors"):
        root.set(name, str(sum(int(s.get(name, "0")) for s in suites)))
    root.set("time", _decimal(sum((Decimal(s.get("time", "0")) for s in suites), Decimal(0))))
    ET.indent(root)
    return _DECLARATION + ET.tostring(root, encoding="unicode") + "\n"


def _by_model(view: ReportView) -> list[tuple[str | None, list[_Case]]]:
    """Each model (in the order it first answered) with its cases (in position order)."""
    section = view.section(CasesSection)
    grouped: dict[str | None, list[_Case]] = {s.model: [] for s in view.run.samples}
    for case in () if section is None else section.cases:
        models = dict.fromkeys(sample.sample.model for sample in case.samples)
        for model in models:
            mine = tuple(s for s in case.samples if s.sample.model == model)
            grouped.setdefault(model, []).append(_Case(case.case_id, mine))
    return list(grouped.items())


def _testsuite(view: ReportView, model: str | None, cases: Sequence[_Case]) -> ET.Element:
    run = view.run
    outcomes = [case.outcome for case in cases]
    seconds = sum((case.seconds for case in cases), Decimal(0))
    element = ET.Element(
        "testsuite",
        name=xml_text(model if model is not None else run.suite),
        tests=str(len(cases)),
        failures=str(outcomes.count(SampleStatus.FAILED)),
        errors=str(outcomes.count(SampleStatus.ERROR)),
        skipped=str(outcomes.count(SampleStatus.NOT_EVALUATED)),
        time=_decimal(seconds),
        timestamp=_timestamp(run.started_at),
    )
    element.append(_properties(view, model, cases))
    element.extend(_testcase(run.suite, case) for case in cases)
    return element


def _properties(view: ReportView, model: str | None, cases: Sequence[_Case]) -> ET.Element:
    run = view.run
    pairs = [
        ("assay.run", run.id),
        ("assay.suite", run.suite),
        ("assay.agent", run.agent),
        ("assay.fingerprint", run.fingerprint),
        ("assay.status", run.status.value),
    ]
    release = run.settings.release
    if release is not None:
        pairs += [
            (f"assay.release.{name}", value)
            for name, value in (
                ("digest", release.digest),
                ("revision", release.revision),
                ("label", release.label),
                ("dirty", "true" if release.dirty else None),
            )
            if value is not None
        ]
    if model is not None:
        pairs.append(("assay.model", model))
    if run.baseline_id is not None:
        pairs.append(("assay.baseline", run.baseline_id))
    if view.estimated:
        pairs.append(("assay.legend", fmt.ESTIMATED_LEGEND))
    pairs += [
        (f"{case.case_id} sample {v.sample.sample}", _sample_line(v))
        for case in cases
        for v in case.samples
    ]
    element = ET.Element("properties")
    element.extend(ET.Element("property", name=xml_text(k), value=xml_text(v)) for k, v in pairs)
    return element


def _sample_line(view: SampleView) -> str:
    """``failed · 1.48 s · 2,751 tokens · ~$0.0243 · missing_content``."""
    sample = view.sample
    parts = [sample.status.value.replace("_", " ")]
    if sample.duration_ms is not None:
        parts.append(fmt.duration_ms(sample.duration_ms))
    usage = sample.usage
    if usage is not None and usage.total_tokens is not None:
        parts.append(f"{fmt.tokens(usage.total_tokens)} tokens")
    if usage is not None and usage.cost_usd is not None:
        parts.append(fmt.money(usage.cost_usd, estimated=usage.cost_source == "estimated"))
    if sample.fault is not None:
        parts.append(str(sample.fault))
    return " · ".join(parts)


def _testcase(suite: str, case: _Case) -> ET.Element:
    element = ET.Element(
        "testcase",
        name=xml_text(case.case_id),
        classname=xml_text(suite),
        time=_decimal(case.seconds),
    )
    outcome = _outcome(case)
    if outcome is not None:
        element.append(outcome)
    out = ET.SubElement(element, "system-out")
    out.text = xml_text("\n\n".join(_evidence(view) for view in case.samples))
    return element


def _outcome(case: _Case) -> ET.Element | None:
    outcome = case.outcome
    if outcome is SampleStatus.PASSED:
        return None
    shortfall = [v for v in case.samples if v.sample.status is not SampleStatus.PASSED]
    if outcome is SampleStatus.NOT_EVALUATED:
        return _element(
            "skipped",
            f"{len(shortfall)} of {len(case.samples)} samples not evaluated: "
            "no metric was calculated",
            None,
            "\n\n".join(v.heading for v in shortfall),
        )
    worst = [v for v in shortfall if v.sample.status is outcome]
    first = worst[0].sample
    said = lines_of((first.error or "").strip())
    if outcome is SampleStatus.ERROR:
        what = said[0] if said else f"metric error: {_failed_metrics(worst[0])}"
        kind, tag, verb = "agent error" if said else "metric error", "error", "errored"
    else:
        what, kind, tag, verb = _failed_metrics(worst[0]), "failed", "failure", "failed"
    if len(case.samples) > 1:
        what = f"{len(worst)} of {len(case.samples)} samples {verb}: {what}"
    elif tag == "failure":
        what = f"failed: {what}"
    return _element(
        tag,
        what,
        str(first.fault) if first.fault is not None else kind,
        "\n\n".join(_shortfall(v) for v in shortfall),
    )


def _element(tag: str, message: str, kind: str | None, text: str) -> ET.Element:
    element = ET.Element(tag, message=xml_text(message))
    if kind is not None:
        element.set("type", xml_text(kind))
    element.text = xml_text(text)
    return element


def _failed_metrics(view: SampleView) -> str:
    names = [m.name for m in view.sample.metrics if m.error is not None or not m.passed]
    return ", ".join(names)


def _shortfall(view: SampleView) -> str:
    """A sample that did not pass: its heading, error and traceback, failed metrics, fault."""
    sample = view.sample
    lines = [view.heading]
    if sample.error is not None:
        lines.append(f"agent error: {sample.error}")
    if view.trace is not None:
        lines.append(view.trace)
    lines += _metric_lines(view)
    if sample.fault is not None:
        lines.append(f"fault: {sample.fault}: {sample.recommendation or ''}".rstrip(": "))
    return "\n".join(lines)


def _metric_lines(view: SampleView) -> Iterable[str]:
    if view.metrics is None:
        return []
    rows = zip(view.sample.metrics, view.metrics.rows, strict=True)
    # Cells in METRIC_HEADERS order: metric, kind, score, threshold, result, reason / error.
    return [
        f"{name} ({kind}): {result}, score {score}, needs {threshold}: {why}"
        for metric, row in rows
        if metric.error is not None or not metric.passed
        for name, kind, score, threshold, result, why in [[written(cell) for cell in row]]
    ]


def _evidence(view: SampleView) -> str:
    """A sample as a reader of the CI job wants it: heading, answer, actions."""
    sample = view.sample
    answer = "(none)" if sample.answer is None else sample.answer
    actions = "\n".join(f"  {line}" for line in view.actions)
    return f"{view.heading}\nanswer:\n{answer}\nactions:\n{actions}"


def _timestamp(moment: datetime) -> str:
    """When the run started, in UTC without a zone (``2025-03-14T09:30:00``), as Ant wrote it."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


def _seconds(millis: float | None) -> Decimal:
    return Decimal(0) if millis is None else Decimal(repr(float(millis))) / 1000


def _decimal(seconds: Decimal) -> str:
    """Seconds to the millisecond, as the schema's consumers read a time: ``1.480``."""
    return f"{seconds.quantize(Decimal('0.001')):f}"
