"""A noise floor: a suite run twice against the same code, as ``assay-agents control`` does.

:func:`control_pair` opens the suite (a :class:`~assay.Suite` or the path of one, with the
project's configuration applied, as :func:`assay.run` does), runs it twice as a control
pair, measures the floor and decides: a pair in which no sample was evaluated measured
nothing, and fails unless ``allow_unchecked``. Failed samples do not fail a control pair:
it measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Unpack

from assay_agents.compare import DEFAULT_FLAKY_SHARE, NoiseFloor, measure_noise
from assay_agents.evaluation.api import SuiteOrPath, _refuse_running_loop, open_configured
from assay_agents.evaluation.control import checked, run_control_async
from assay_agents.evaluation.loop import run_sync
from assay_agents.evaluation.options import EvaluationArgs
from assay_agents.evaluation.verdict import Verdict
from assay_agents.results import Run
from assay_agents.runner.progress import Progress
from assay_agents.spec.gate import Figure, GateFinding, Reading

if TYPE_CHECKING:
    from assay_agents.load.opening import Selection
    from assay_agents.store import Store


@dataclass(frozen=True, kw_only=True)
class ControlPair:
    """Two runs of one suite with nothing changed, the floor they measured, and the verdict.

    ``noise_floor`` is ``None`` when either run evaluated no sample (nothing was measured);
    ``too_flaky`` when the unchanged system moved more than ``flaky_share`` against itself.
    """

    first: Run
    second: Run
    noise_floor: NoiseFloor | None
    flaky_share: float
    too_flaky: bool
    verdict: Verdict


async def control_pair_async(
    suite: SuiteOrPath,
    *,
    db: str | Store | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    flaky_share: float = DEFAULT_FLAKY_SHARE,
    **options: Unpack[EvaluationArgs],
) -> ControlPair:
    """Run ``suite`` twice as a control pair and measure its noise floor.

    ``options`` are those of :func:`assay.evaluate_async` (``baseline``, ``resume`` and
    ``run_id`` excepted); later comparisons of the same definition label every change
    within or beyond the floor. ``allow_unchecked`` lets a pair that evaluated no sample
    pass; a floor above ``flaky_share`` is reported as too flaky to measure.
    """
    # Decided on the pair: each run of it is stored as a run that checked nothing would be.
    allow_unchecked = bool(options.pop("allow_unchecked", False))
    opened, _ = open_configured(suite, selection)
    first, second = await run_control_async(opened, db=db, progress=progress, **options)
    return measured(first, second, flaky_share=flaky_share, allow_unchecked=allow_unchecked)


def control_pair(
    suite: SuiteOrPath,
    *,
    db: str | Store | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    flaky_share: float = DEFAULT_FLAKY_SHARE,
    **options: Unpack[EvaluationArgs],
) -> ControlPair:
    """Run ``suite`` twice synchronously; see :func:`control_pair_async`."""
    _refuse_running_loop("control_pair")
    return run_sync(
        control_pair_async(
            suite,
            db=db,
            progress=progress,
            selection=selection,
            flaky_share=flaky_share,
            **options,
        )
    )


def measured(
    first: Run, second: Run, *, flaky_share: float = DEFAULT_FLAKY_SHARE, allow_unchecked: bool
) -> ControlPair:
    """The floor two control runs measured, and whether the pair passes."""
    if checked(first) and checked(second):
        floor = measure_noise(first, second)
        return ControlPair(
            first=first,
            second=second,
            noise_floor=floor,
            flaky_share=flaky_share,
            too_flaky=floor.too_flaky(flaky_share),
            verdict=Verdict(failed=False, regressed=False),
        )
    verdict = Verdict(
        failed=not allow_unchecked,
        regressed=False,
        unchecked=True,
        findings=(_unmeasured(first, second, allowed=allow_unchecked),),
        reasons=() if allow_unchecked else ("nothing was checked",),
    )
    return ControlPair(
        first=first,
        second=second,
        noise_floor=None,
        flaky_share=flaky_share,
        too_flaky=False,
        verdict=verdict,
    )


def _unmeasured(first: Run, second: Run, *, allowed: bool) -> GateFinding:
    """The floor the pair did not measure, with the samples it did not evaluate."""
    runs = [run for run in (first, second) if not checked(run)]
    not_evaluated = sum(run.summary.not_evaluated for run in runs if run.summary is not None)
    return GateFinding(
        figure=Figure.NOISE_FLOOR,
        reading=Reading.MET if allowed else Reading.VIOLATED,
        value=not_evaluated,
    )
