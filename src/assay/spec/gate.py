"""Gate thresholds: what a run must reach for a pipeline to go on.

>>> gate = Gate(min_pass_rate=0.9)
>>> gate.max_side_effect_failures
0

The deterministic thresholds and the judge threshold are kept apart on purpose: a failing
side effect fails the gate whatever the pass rate or the judge said, and a judge score is
reported as its own verdict, never folded into the deterministic one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol

from assay.errors import SpecError
from assay.spec.observation import SIDE_EFFECTS

#: The violation of a gate none of whose figures the run measured: it decided on nothing.
MEASURED_NOTHING = "it measured nothing: the run had none of the figures its thresholds read"


class _Criterion(Protocol):
    @property
    def mean(self) -> float | None: ...


class GateReading(Protocol):
    """What a gate reads from a run summary (:class:`assay.results.RunSummary` meets it)."""

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


@dataclass(frozen=True, slots=True)
class GateResult:
    """The gate's verdict: deterministic violations and judge violations, listed apart."""

    violations: tuple[str, ...] = ()
    judge_violations: tuple[str, ...] = ()
    #: Thresholds that had nothing to measure (not violations): shown with the verdict.
    unmeasured: tuple[str, ...] = ()
    #: The figures that met their thresholds, named (``deterministic pass rate 100% ≥ 90%``).
    readings: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """Whether no threshold was violated."""
        return not self.violations and not self.judge_violations

    def lines(self) -> list[str]:
        """The verdict with the first figure it read, then one line per other figure.

        Violations come first (judge ones marked as such), then the figures that met their
        thresholds, then any threshold that measured nothing, as ``not measured``: a reader
        sees which number the gate decided on, never only ``passed`` beside another number.
        """
        figures = [
            *self.violations,
            *(f"judge: {line}" for line in self.judge_violations),
            *self.readings,
        ]
        head = "gate: passed" if self.passed else "gate: failed"
        if figures:
            head += f" · {figures[0]}"
        return [head, *(f"  {line}" for line in [*figures[1:], *self.unmeasured])]


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
            return GateResult(("the run has no summary (it did not complete)",))
        violations: list[str] = []
        readings: list[str] = []
        unmeasured: list[str] = []
        for found, met, missing in (self._pass_rate(summary), self._side_effects(summary)):
            violations += found
            readings += met
            unmeasured += missing
        judge_violations, judge_readings = self._judged(summary)
        readings += judge_readings
        if not (violations or judge_violations or readings):
            violations.append(MEASURED_NOTHING)
        return GateResult(
            tuple(violations), tuple(judge_violations), tuple(unmeasured), tuple(readings)
        )

    def _pass_rate(self, summary: GateReading) -> tuple[list[str], list[str], list[str]]:
        if self.min_pass_rate is None:
            return [], [], []
        rate = summary.check_pass_rate
        if rate is None and summary.pass_rate is None:
            return ["deterministic pass rate: no sample was evaluated"], [], []
        if rate is None:
            return (
                [],
                [],
                ["deterministic pass rate: not measured (no sample had a deterministic check)"],
            )
        # The headline counts judge failures too; this figure does not, and says so.
        aside = " (checks only: judge criteria are not in this figure)" if summary.judge else ""
        passed = rate >= self.min_pass_rate
        line = (
            f"deterministic pass rate {_percent(rate)} {'≥' if passed else '<'} "
            f"{_percent(self.min_pass_rate)}{aside}"
        )
        return ([], [line], []) if passed else ([line], [], [])

    def _side_effects(self, summary: GateReading) -> tuple[list[str], list[str], list[str]]:
        failures = int(summary.failing_by_category.get(SIDE_EFFECTS, 0))
        # A summary stored before checked samples were counted still shows its failures.
        checked = int(getattr(summary, "checked_by_category", {}).get(SIDE_EFFECTS, 0))
        allowed = self.max_side_effect_failures
        if failures > allowed:
            return (
                [
                    f"{failures} sample(s) failed a side-effect assertion (at most {allowed} "
                    "allowed)"
                ],
                [],
                [],
            )
        if not failures and not checked:
            return [], [], ["side-effect failures: not measured — no side-effect checks"]
        return [], [f"side-effect failures {failures} ≤ {allowed}"], []

    def _judged(self, summary: GateReading) -> tuple[list[str], list[str]]:
        if self.min_judge_score is None:
            return [], []
        if not summary.judge:
            return ["no judge criterion was graded (is a judge set?)"], []
        found: list[str] = []
        met: list[str] = []
        for name, criterion in summary.judge.items():
            mean = criterion.mean
            if mean is None or mean < self.min_judge_score:
                shown = "no score" if mean is None else f"mean {mean:.3f}"
                found.append(f"{name}: {shown} is below the minimum {self.min_judge_score:g}")
            else:
                met.append(f"judge {name} mean {mean:.3f} ≥ {self.min_judge_score:g}")
        return found, met


def _fraction(value: Any, field: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise SpecError(f"{value!r} is not a number in [0, 1]", field=field)
    return float(value)


def _percent(value: float) -> str:
    """``90%``, ``62.5%``: as the headline writes a rate, with a decimal only when it has one."""
    return f"{value * 100:.1f}".removesuffix(".0") + "%"
