"""The decision about one run, as a value: what a CLI prints and the exit code it uses."""

from __future__ import annotations

from dataclasses import dataclass

from assay_agents.compare import Comparison
from assay_agents.exit_codes import ExitCode
from assay_agents.results import Run
from assay_agents.results.baseline import RunOutcome
from assay_agents.spec.gate import Figure, Gate, GateFinding, GateResult, Reading

__all__ = ["ExitCode", "Verdict", "decide"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Passed, failed or regressed, with each gate's outcome and the exit code that follows.

    ``failed`` is true when a sample failed or errored (or the gate, when one is set, did
    not pass; an errored sample fails the run whatever the gate allows); ``regressed`` when
    ``fail_on_regression`` was asked and the comparison found signal regressions.
    ``unchecked`` when no sample was evaluated at all: such a run fails (a green run that
    checked nothing is how a broken suite ships) unless ``allow_unchecked`` was asked.
    """

    failed: bool
    regressed: bool
    errors: int = 0
    gate: GateResult | None = None
    regressions: int = 0
    #: What the verdict read, as figures: the gate's, then errored samples that fail the run
    #: whatever the gate allows, a run that checked nothing, the regression gate.
    #: :func:`assay_agents.report.prose.verdict_lines` writes them.
    findings: tuple[GateFinding, ...] = ()
    unchecked: bool = False
    #: Why a run that did not pass failed, in reading order (``errored samples``, ``gate``,
    #: ``failed samples``, ``nothing was checked``, ``regressions``); empty when it passed.
    reasons: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """Whether nothing failed, errored or regressed past the gates."""
        return not self.failed and not self.regressed

    @property
    def outcome(self) -> RunOutcome:
        """What the run came to, stored with it: only a ``passed`` run is an automatic baseline.

        Signal regressions count whether or not ``fail_on_regression`` gated on them: a run
        that regressed is never the yardstick for the next one. A run accepted with nothing
        evaluated is ``unchecked``, never ``passed``: it has no pass rate to compare with.
        """
        return RunOutcome.decide(
            errors=self.errors,
            regressions=self.regressions,
            failed=self.failed,
            unchecked=self.unchecked,
        )

    @property
    def exit_code(self) -> ExitCode:
        """0 when passed, 1 when failed or regressed."""
        return ExitCode.OK if self.passed else ExitCode.FAILED


def decide(
    run: Run,
    comparison: Comparison | None,
    *,
    gate: Gate | None,
    fail_on_regression: bool,
    allow_unchecked: bool = False,
) -> Verdict:
    """Apply the run's gates to what was stored."""
    summary = run.summary
    errors = 0 if summary is None else summary.errors
    failed = summary is None or bool(summary.failed or summary.errors)
    findings: list[GateFinding] = []
    outcome = None
    if gate is not None:
        # A gate decides about failures (a flaky case above its minimum pass rate is a
        # result), never about errors: an errored sample always fails the run.
        outcome = gate.evaluate(run)
        findings.extend(outcome.findings)
        if errors and outcome.passed:
            findings.append(
                GateFinding(figure=Figure.ERRORS, reading=Reading.VIOLATED, value=errors, limit=0)
            )
        failed = not outcome.passed or errors > 0
    # Samples another model answered had checks that never ran: errors, not a suite that
    # checks nothing.
    unchecked = (
        summary is not None
        and summary.evaluated == 0
        and not (summary.samples and summary.other_model == summary.samples)
    )
    if summary is not None and unchecked:
        accepted = Reading.MET if allow_unchecked else Reading.VIOLATED
        findings.append(
            GateFinding(figure=Figure.CHECKED, reading=accepted, value=summary.not_evaluated)
        )
        failed = failed or not allow_unchecked
    # The regression gate reads signal regressions: beyond the latest control run's noise
    # floor, or unmeasured when there is none.
    regressions = 0 if comparison is None else len(comparison.signal_regressions)
    regressed = fail_on_regression and regressions > 0
    if regressed:
        findings.append(
            GateFinding(figure=Figure.REGRESSION, reading=Reading.VIOLATED, value=regressions)
        )
    reasons = _reasons(
        run, outcome, unchecked=unchecked and not allow_unchecked, regressed=regressed
    )
    return Verdict(
        failed=failed,
        regressed=regressed,
        errors=errors,
        gate=outcome,
        regressions=regressions,
        findings=tuple(findings),
        unchecked=unchecked,
        reasons=reasons,
    )


def _reasons(
    run: Run, gate: GateResult | None, *, unchecked: bool, regressed: bool
) -> tuple[str, ...]:
    """Why the run fails, each cause named: a closing line must never read as a pass."""
    summary = run.summary
    if summary is None:
        return ("no summary",)
    found = ["errored samples"] if summary.errors else []
    if gate is not None:
        # With a gate set, failed samples within its thresholds are a result, not a cause.
        found += [] if gate.passed else ["gate"]
    elif summary.failed:
        found.append("failed samples")
    found += ["nothing was checked"] if unchecked else []
    found += ["regressions"] if regressed else []
    return tuple(found)
