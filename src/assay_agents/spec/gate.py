"""Gate thresholds: what a run must reach for a pipeline to go on.

>>> gate = Gate(min_pass_rate=0.9)
>>> gate.max_side_effect_failures
0

The deterministic thresholds and the judge threshold are kept apart on purpose: a failing
side effect fails the gate whatever the pass rate or the judge said, and a judge score is
reported as its own verdict, never folded into the deterministic one.

A gate returns figures, never sentences: each threshold gives a :class:`GateFinding` (the
figure it read, the limit, whether it was met), and :func:`assay_agents.report.prose.gate_lines`
writes them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Protocol

from assay_agents.errors import SpecError
from assay_agents.spec.observation import SIDE_EFFECTS


class _Criterion(Protocol):
    @property
    def mean(self) -> float | None: ...


class GateReading(Protocol):
    """What a gate reads from a run summary (:class:`assay_agents.results.RunSummary` meets it)."""

    @property
    def check_pass_rate(self) -> float | None:
        """Samples whose deterministic checks all passed, over those that had one.

        ``None`` when nothing was evaluated or no sample had a deterministic check.
        """
        ...

    @property
    def pass_rate(self) -> float | None:
        """Passed over evaluated samples; ``None`` when no sample was evaluated."""
        ...

    @property
    def failing_by_category(self) -> Mapping[str, int]:
        """Failing samples per reliability category."""
        ...

    @property
    def checked_by_category(self) -> Mapping[str, int]:
        """Samples with a deterministic check per category (0: the category was not measured)."""
        ...

    @property
    def judge(self) -> Mapping[str, _Criterion]:
        """Each judge criterion's summary (its mean)."""
        ...


class Figure(StrEnum):
    """What a finding of a verdict is about: a threshold of the gate, or another of its gates."""

    #: ``min_pass_rate``: the deterministic pass rate must reach the limit.
    PASS_RATE = "min_pass_rate"
    #: ``max_side_effect_failures``: samples failing a side-effect check, at most the limit.
    SIDE_EFFECTS = "max_side_effect_failures"
    #: ``min_judge_score``: each judge criterion's mean must reach the limit.
    JUDGE = "min_judge_score"
    #: The gate as a whole (a run without a summary, a gate that measured nothing).
    GATE = "gate"
    #: Errored samples, which fail a run whatever its gate allows.
    ERRORS = "errors"
    #: A run in which no sample was evaluated.
    CHECKED = "checked"
    #: Signal regressions, with ``fail_on_regression``.
    REGRESSION = "regression"
    #: A control pair's noise floor: unmeasured when either run evaluated no sample.
    NOISE_FLOOR = "noise_floor"


class Reading(StrEnum):
    """How a figure came out against its limit."""

    MET = "met"
    VIOLATED = "violated"
    NOT_MEASURED = "not_measured"


class Missing(StrEnum):
    """Why a finding has no figure."""

    NO_SUMMARY = "no_summary"
    NOTHING_EVALUATED = "nothing_evaluated"
    NO_DETERMINISTIC_CHECK = "no_deterministic_check"
    NO_SIDE_EFFECT_CHECK = "no_side_effect_check"
    NO_CRITERION_GRADED = "no_criterion_graded"
    NO_SCORE = "no_score"
    #: The gate none of whose figures the run measured: it decided on nothing.
    NOTHING_MEASURED = "nothing_measured"


@dataclass(frozen=True, kw_only=True, slots=True)
class GateFinding:
    """One figure a verdict read, its limit and how it came out; no words.

    ``value`` is the measured figure (a 0..1 rate, a mean, a count), ``None`` when there was
    none, and ``missing`` says why. ``criterion`` names the judge criterion of a
    :attr:`Figure.JUDGE` finding. ``judged`` marks a pass rate read from a run that also had
    judge criteria, which that figure leaves out.
    """

    figure: Figure
    reading: Reading
    value: float | None = None
    limit: float | None = None
    criterion: str | None = None
    missing: Missing | None = None
    judged: bool = False

    @property
    def passed(self) -> bool:
        """Whether the finding does not fail the run (met, or not measured)."""
        return self.reading is not Reading.VIOLATED

    @property
    def at_most(self) -> bool:
        """Whether the limit is a maximum (the figure passes at or below it)."""
        return self.figure in (Figure.SIDE_EFFECTS, Figure.ERRORS, Figure.REGRESSION)


#: The finding of a gate none of whose figures the run measured.
MEASURED_NOTHING = GateFinding(
    figure=Figure.GATE, reading=Reading.VIOLATED, missing=Missing.NOTHING_MEASURED
)


@dataclass(frozen=True, slots=True)
class GateResult:
    """The gate's verdict: one finding per figure it read, in the order they were read."""

    findings: tuple[GateFinding, ...] = ()

    @property
    def violations(self) -> tuple[GateFinding, ...]:
        """The deterministic thresholds (and the gate as a whole) that were violated."""
        return tuple(f for f in self.findings if not f.passed and f.figure is not Figure.JUDGE)

    @property
    def judge_violations(self) -> tuple[GateFinding, ...]:
        """The judge threshold's violations, listed apart."""
        return tuple(f for f in self.findings if not f.passed and f.figure is Figure.JUDGE)

    @property
    def readings(self) -> tuple[GateFinding, ...]:
        """The figures that met their thresholds."""
        return tuple(f for f in self.findings if f.reading is Reading.MET)

    @property
    def unmeasured(self) -> tuple[GateFinding, ...]:
        """Thresholds that had nothing to measure (not violations): shown with the verdict."""
        return tuple(f for f in self.findings if f.reading is Reading.NOT_MEASURED)

    @property
    def passed(self) -> bool:
        """Whether no threshold was violated."""
        return all(f.passed for f in self.findings)


@dataclass(frozen=True, kw_only=True, slots=True)
class Gate:
    """Thresholds a run must meet.

    ``min_pass_rate`` is the minimum deterministic pass rate (samples whose checks all passed,
    over evaluated samples that had one; judge criteria set aside). A run in which no sample
    had a deterministic check has no such rate: the threshold is reported as not measured,
    never as a violation; a run in which no sample was evaluated at all violates it.
    ``max_side_effect_failures`` is the number of samples allowed to fail a ``side_effects``
    check (an observation channel, a forbid list, ``forbid_actions``), 0 by default, so any
    such failure fails the gate whatever the pass rate; a run with no such check did not
    measure it. A gate none of whose thresholds was measured fails (:data:`MEASURED_NOTHING`).
    ``min_judge_score`` (optional) is the minimum mean of every judge criterion, reported
    separately.
    """

    min_pass_rate: float | None = None
    max_side_effect_failures: int = 0
    min_judge_score: float | None = None

    def __post_init__(self) -> None:
        for name in ("min_pass_rate", "min_judge_score"):
            value = getattr(self, name)
            if value is not None:
                _fraction(value, f"gate.{name}")
        count = self.max_side_effect_failures
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise SpecError(
                f"{count!r} is not a whole number of samples ≥ 0",
                field="gate.max_side_effect_failures",
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], field: str = "gate") -> Gate:
        """A gate from plain data (``suite.toml``'s ``[gate]``, ``--gate KEY=VALUE``)."""
        known = {f.name for f in fields(cls)}
        unknown = [key for key in data if key not in known]
        if unknown:
            raise SpecError(
                f"unknown threshold {unknown[0]!r}; a gate has {', '.join(sorted(known))}",
                field=f"{field}.{unknown[0]}",
            )
        return cls(**dict(data))

    def updated(self, **values: Any) -> Gate:
        """The same gate with some thresholds replaced (command-line overrides)."""
        return Gate.from_mapping(
            {**{f.name: getattr(self, f.name) for f in fields(self)}, **values}
        )

    def evaluate(self, reading: GateReading | Any) -> GateResult:
        """Judge a run (or its summary) against the thresholds.

        Every threshold gives a violation, a reading that met it, or ``not measured``. A gate
        none of whose thresholds measured anything fails: a green gate must have read a figure.
        """
        summary = getattr(reading, "summary", reading)
        if summary is None:
            return GateResult((_violated(Figure.GATE, Missing.NO_SUMMARY),))
        findings = [
            *self._pass_rate(summary),
            *self._side_effects(summary),
            *self._judged(summary),
        ]
        if all(f.reading is Reading.NOT_MEASURED for f in findings):
            findings.insert(0, MEASURED_NOTHING)
        return GateResult(tuple(findings))

    def _pass_rate(self, summary: GateReading) -> list[GateFinding]:
        if self.min_pass_rate is None:
            return []
        limit = self.min_pass_rate
        rate = summary.check_pass_rate
        if rate is None and summary.pass_rate is None:
            return [_violated(Figure.PASS_RATE, Missing.NOTHING_EVALUATED, limit)]
        if rate is None:
            return [_unmeasured(Figure.PASS_RATE, Missing.NO_DETERMINISTIC_CHECK, limit)]
        # The headline counts judge failures too; this figure does not, and says so.
        return [
            GateFinding(
                figure=Figure.PASS_RATE,
                reading=Reading.MET if rate >= limit else Reading.VIOLATED,
                value=rate,
                limit=limit,
                judged=bool(summary.judge),
            )
        ]

    def _side_effects(self, summary: GateReading) -> list[GateFinding]:
        failures = int(summary.failing_by_category.get(SIDE_EFFECTS, 0))
        # A summary stored before checked samples were counted still shows its failures.
        checked = int(getattr(summary, "checked_by_category", {}).get(SIDE_EFFECTS, 0))
        allowed = self.max_side_effect_failures
        if not failures and not checked:
            return [_unmeasured(Figure.SIDE_EFFECTS, Missing.NO_SIDE_EFFECT_CHECK, allowed)]
        met = Reading.MET if failures <= allowed else Reading.VIOLATED
        return [GateFinding(figure=Figure.SIDE_EFFECTS, reading=met, value=failures, limit=allowed)]

    def _judged(self, summary: GateReading) -> list[GateFinding]:
        limit = self.min_judge_score
        if limit is None:
            return []
        if not summary.judge:
            return [_violated(Figure.JUDGE, Missing.NO_CRITERION_GRADED, limit)]
        return [
            GateFinding(
                figure=Figure.JUDGE,
                reading=Reading.VIOLATED
                if criterion.mean is None or criterion.mean < limit
                else Reading.MET,
                value=criterion.mean,
                limit=limit,
                criterion=name,
                missing=Missing.NO_SCORE if criterion.mean is None else None,
            )
            for name, criterion in summary.judge.items()
        ]


def _violated(figure: Figure, missing: Missing, limit: float | None = None) -> GateFinding:
    return GateFinding(figure=figure, reading=Reading.VIOLATED, limit=limit, missing=missing)


def _unmeasured(figure: Figure, missing: Missing, limit: float) -> GateFinding:
    return GateFinding(figure=figure, reading=Reading.NOT_MEASURED, limit=limit, missing=missing)


def _fraction(value: Any, field: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise SpecError(f"{value!r} is not a number in [0, 1]", field=field)
    return float(value)
