"""What a run's verdict was decided with, kept in its settings under ``gate``.

The thresholds (:class:`~assay.spec.gate.Gate`), the regression gate and the tolerances the
comparison applied: with them a run read back (an archived report brought into another
history) has its comparison and its outcome recomputed from its samples, never taken as
written. Runs stored before it was kept have no ``gate`` setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from assay.errors import SpecError
from assay.limits import problem
from assay.results.settings import RunSettings
from assay.spec import JSON
from assay.spec.gate import Gate

#: The settings key.
GATE_SETTING = "gate"


@dataclass(frozen=True, slots=True)
class RunGate:
    """The gate and comparison rules one run was decided with."""

    thresholds: Gate | None
    fail_on_regression: bool
    allow_unchecked: bool
    tolerance: float
    drift_tolerance: float

    def to_json(self) -> dict[str, JSON]:
        """The form stored in the run's settings."""
        thresholds = self.thresholds
        return {
            "thresholds": None
            if thresholds is None
            else {f.name: getattr(thresholds, f.name) for f in fields(thresholds)},
            "fail_on_regression": self.fail_on_regression,
            "allow_unchecked": self.allow_unchecked,
            "tolerance": self.tolerance,
            "drift_tolerance": self.drift_tolerance,
        }

    @classmethod
    def from_settings(cls, settings: RunSettings) -> RunGate | None:
        """The gate a run's settings hold; ``None`` for a run stored before it was kept.

        A malformed one is a :class:`SpecError` whose field is its path (``gate.tolerance``).
        """
        data = settings.gate
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise SpecError(f"is {data!r}, not an object", field=GATE_SETTING)
        return cls(
            thresholds=_thresholds(data.get("thresholds")),
            fail_on_regression=_flag(data, "fail_on_regression"),
            allow_unchecked=_flag(data, "allow_unchecked"),
            tolerance=_tolerance(data, "tolerance"),
            drift_tolerance=_tolerance(data, "drift_tolerance"),
        )


def _thresholds(data: object) -> Gate | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise SpecError(f"is {data!r}, not an object", field=f"{GATE_SETTING}.thresholds")
    try:
        return Gate.from_mapping(data)
    except SpecError as error:
        field = (error.field or GATE_SETTING).removeprefix(GATE_SETTING).lstrip(".")
        raise SpecError(error.detail, field=_join("thresholds", field)) from None


def _flag(data: Mapping[str, object], name: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise SpecError(f"is {value!r}, not true or false", field=f"{GATE_SETTING}.{name}")
    return value


def _tolerance(data: Mapping[str, object], name: str) -> float:
    value = data.get(name)
    found = problem(name, value)
    if found is not None:
        raise SpecError(found, field=f"{GATE_SETTING}.{name}")
    return float(value)  # type: ignore[arg-type]


def _join(*parts: str) -> str:
    return ".".join([GATE_SETTING, *(part for part in parts if part)])
