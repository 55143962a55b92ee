"""Which run a run was compared with and why, and whether a run may be a baseline itself.

A run's **outcome** is decided when it completes and stored with it: ``passed`` when nothing
errored, its gate held (without a gate: no sample failed), it showed no signal regression
against its own baseline and at least one sample was evaluated; ``unchecked`` when it was
accepted (``--allow-unchecked``) with no sample evaluated. Only a passing run is ever an
automatic baseline, so one broken run cannot become the yardstick that makes the next broken
run look unchanged, and a run that checked nothing cannot be the yardstick of anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from assay_agents.results.summary import RunSummary
from assay_agents.spec import JSON


class RunOutcome(StrEnum):
    """What a completed run came to, most serious first when several apply."""

    ERRORED = "errored"
    REGRESSED = "regressed"
    FAILED = "failed"
    UNCHECKED = "unchecked"
    PASSED = "passed"

    @classmethod
    def decide(
        cls, *, errors: int, regressions: int, failed: bool, unchecked: bool = False
    ) -> RunOutcome:
        """Errored samples, then signal regressions (gated or not), then a failed gate.

        Then a run accepted although it evaluated no sample: it is not a passing run.
        """
        if errors:
            return cls.ERRORED
        if regressions:
            return cls.REGRESSED
        if failed:
            return cls.FAILED
        return cls.UNCHECKED if unchecked else cls.PASSED


def legacy_outcome(summary: RunSummary | None) -> RunOutcome:
    """The outcome of a run stored before outcomes were kept, as far as its summary tells.

    Its gate and its own regressions were not kept in a form that says more: it passed when
    no sample failed or errored.
    """
    if summary is None:
        return RunOutcome.FAILED
    return RunOutcome.decide(
        errors=summary.errors,
        regressions=0,
        failed=summary.failed > 0,
        unchecked=summary.evaluated == 0,
    )


class BaselineReason(StrEnum):
    """Why a run was compared with the run it was compared with (or with none)."""

    EXPLICIT = "explicit"
    RESCORED = "rescored"
    PINNED = "pinned"
    LATEST_PASSING = "latest_passing"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class BaselineChoice:
    """The baseline a run used and why; stored with the run, so later reports say the same.

    ``where`` is the metadata the automatic baseline was restricted to; ``note`` says, when
    there is no baseline, why there is none, and ``hint`` what to do about it, ending with
    the command to paste (``pin one with assay-agents baseline set RUN``), so that a front end can
    name the database it was given after it.
    """

    reason: BaselineReason
    run_id: str | None = None
    where: Mapping[str, str] = field(default_factory=dict)
    note: str | None = None
    hint: str | None = None

    def why(self, command_suffix: str = "") -> str:
        """``pinned``, ``latest passing run where branch=main``, ``explicit --baseline``.

        A rescore's baseline is ``the run this run rescores``.

        ``command_suffix`` ends the hint's command (`` --db URL``).
        """
        if self.reason is BaselineReason.PINNED:
            return "pinned"
        if self.reason is BaselineReason.EXPLICIT:
            return "explicit --baseline"
        if self.reason is BaselineReason.RESCORED:
            return "the run this run rescores"
        if self.reason is BaselineReason.LATEST_PASSING:
            return "latest passing run" + where_text(self.where)
        hint = f"; {self.hint}{command_suffix}" if self.hint else ""
        return (self.note or "no baseline") + hint

    def line(self, command_suffix: str = "") -> str:
        """``Baseline: 428c1f0a (latest passing run)``, or ``Baseline: none (why)``."""
        shown = "none" if self.run_id is None else self.run_id[:8]
        return f"Baseline: {shown} ({self.why(command_suffix)})"


@dataclass(frozen=True, slots=True)
class Pin:
    """A suite and agent's pinned baseline: it wins over the automatic one."""

    suite: str
    agent: str
    run_id: str
    pinned_at: datetime


def where_text(where: tuple[tuple[str, str], ...] | Mapping[str, str]) -> str:
    """`` where branch=main, tier=gold`` (empty without a restriction)."""
    pairs = where.items() if isinstance(where, Mapping) else where
    text = ", ".join(f"{key}={value}" for key, value in pairs)
    return f" where {text}" if text else ""


def metadata_matches(metadata: Mapping[str, JSON], where: Mapping[str, str]) -> bool:
    """Whether run metadata has every ``KEY=VALUE`` of ``where``.

    A value matches a string equal to it, or a whole number written the same way
    (``pr=42`` matches ``{"pr": 42}``); nothing else (lists, objects, booleans) matches.
    """
    return all(_matches(metadata.get(key), value) for key, value in where.items())


def _matches(found: JSON | None, value: str) -> bool:
    if isinstance(found, str):
        return found == value
    return isinstance(found, int) and not isinstance(found, bool) and str(found) == value
