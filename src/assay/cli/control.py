"""``assay control``: run a suite twice against the same code and report its noise floor."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from assay._text import visible
from assay.cli._common import (
    ConcurrencyOption,
    DbOption,
    JudgeBaseUrlOption,
    JudgeOption,
    JudgeTimeoutOption,
    MetadataOption,
    ModelOption,
    QuietOption,
    SamplesOption,
    SuiteOption,
    TimeoutOption,
    VotesOption,
    database_url,
    metadata_option,
    user_errors,
)
from assay.cli._files import (
    AgentOption,
    CaseOption,
    GroupOption,
    HarnessOption,
    ProductionOption,
    ProductOption,
    SetOption,
)
from assay.cli._warnings import print_unchecked
from assay.exit_codes import ExitCode, exit_code_for


def control_command(
    spec: Annotated[
        Path,
        typer.Argument(
            help="Any suite assay run accepts: a Python file, a YAML suite or catalog, a directory "
            "of item files, or pasted scenarios."
        ),
    ],
    suite: SuiteOption = None,
    db: DbOption = None,
    samples: SamplesOption = None,
    concurrency: ConcurrencyOption = None,
    model: ModelOption = None,
    timeout: TimeoutOption = None,
    metadata: MetadataOption = None,
    judge: JudgeOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    votes: VotesOption = None,
    flaky_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="A floor above this is reported as a corpus too flaky to measure.",
        ),
    ] = 0.3,
    allow_unchecked: Annotated[
        bool,
        typer.Option(
            "--allow-unchecked",
            help="Let a pair in which no sample was evaluated (nothing was "
            "checked, so no floor was measured) exit 0; by default it "
            "exits 1.",
        ),
    ] = False,
    quiet: QuietOption = False,
    product: ProductOption = None,
    set_: SetOption = None,
    group: GroupOption = None,
    case: CaseOption = None,
    include_production_only: ProductionOption = False,
    agent: AgentOption = None,
    harness: HarnessOption = None,
) -> None:
    """Run a suite twice with nothing changed, store the pair, and print its noise floor.

    Later comparisons of the same definition (assay run, assay compare) label every change
    within or beyond this floor. Failed samples do not fail a control run: it measures. A
    pair in which no sample was evaluated measures nothing: no floor is stored, and it exits
    1 unless --allow-unchecked.
    """
    from assay.cli._files import open_for_run
    from assay.load.opening import Selection

    with user_errors():
        # The same selection and project defaults as assay run, so the pair has the
        # fingerprint later runs have and measures what they measure.
        selection = Selection(
            suite=suite,
            product=product,
            set=set_,
            groups=group or (),
            cases=case or (),
            include_production_only=include_production_only,
            agent=agent,
            harness=harness,
        )
        chosen, judged_by, _ = open_for_run(
            spec,
            selection,
            judge=judge,
            judge_base_url=judge_base_url,
            judge_timeout=judge_timeout,
        )
        options: dict[str, Any] = {
            "metadata": metadata_option(metadata),
            "samples": samples,
            "concurrency": concurrency,
            "models": model or None,
            "timeout": timeout,
            "votes": votes,
            "judge": judged_by,
        }
        print_unchecked(
            chosen,
            judged=options["judge"] is not None or chosen.judge is not None,
            judge_hint="give the pair --judge MODEL",
        )
        first, second = _execute(chosen, options, database_url(db), quiet)
    if not _report(first, second, flaky_share, allow_unchecked=allow_unchecked):
        raise typer.Exit(ExitCode.FAILED)


def _execute(suite: Any, options: dict[str, Any], url: str | None, quiet: bool) -> Any:
    from assay.errors import IncompleteRunError, Terminated
    from assay.evaluation import run_control_async
    from assay.evaluation._loop import run_sync
    from assay.runner.progress import default_progress

    incomplete = "the control pair is incomplete and will not be used"
    try:
        return run_sync(
            run_control_async(suite, db=url, progress=default_progress(quiet), **options)
        )
    except (KeyboardInterrupt, Terminated) as stop:
        what = "interrupted" if isinstance(stop, KeyboardInterrupt) else str(stop)
        print(f"{what}: {incomplete}", file=sys.stderr)
        raise typer.Exit(exit_code_for(stop)) from None
    except IncompleteRunError as error:
        print(f"error: {visible(str(error))}; {incomplete}", file=sys.stderr)
        raise typer.Exit(exit_code_for(error)) from None


def _report(first: Any, second: Any, flaky_share: float, *, allow_unchecked: bool) -> bool:
    """Print the pair and its floor; ``False`` when it measured nothing and that is refused."""
    from assay.compare import NoiseFloor
    from assay.evaluation.control import checked
    from assay.report.prose import noise_floor_line, too_flaky_line

    print(
        visible(
            f"control pair of {first.suite} · {first.agent} (fingerprint "
            f"{first.fingerprint[:12]}): runs {first.id} and {second.id}"
        )
    )
    if not (checked(first) and checked(second)):
        print(_unmeasured_line(first, second, allowed=allow_unchecked))
        return allow_unchecked
    floor = NoiseFloor.measure(first, second)
    if floor.too_flaky(flaky_share):
        print(too_flaky_line(floor, flaky_share))
    print(noise_floor_line(floor))
    return True


def _unmeasured_line(first: Any, second: Any, *, allowed: bool) -> str:
    """Why the pair gives no floor, worded as ``assay run`` words a run that checked nothing."""
    from assay.evaluation.control import checked

    runs = [run for run in (first, second) if not checked(run)]
    not_evaluated = sum(run.summary.not_evaluated for run in runs if run.summary is not None)
    if not not_evaluated:
        # Every sample was answered by another model: checks that never ran, errors that say so.
        return (
            "no noise floor was measured: no sample was evaluated (another model answered "
            "every one; see the errors)"
        )
    from assay.evaluation.verdict import unchecked_line

    why = unchecked_line(
        not_evaluated, allowed=allowed, accept="such a pair with --allow-unchecked"
    )
    return f"no noise floor was measured: {why}"
