"""``assay run``: execute a suite, persist it, compare it with its baseline, gate on it."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ConcurrencyOption,
    DbOption,
    JudgeBaseUrlOption,
    JudgeOption,
    MetadataOption,
    ModelOption,
    QuietOption,
    SamplesOption,
    SuiteOption,
    TimeoutOption,
    VotesOption,
    database_url,
    judge_option,
    metadata_option,
    user_errors,
)
from assay.cli._files import (
    AgentOption,
    CaseOption,
    GateOption,
    GroupOption,
    HarnessOption,
    ProductionOption,
    ProductOption,
    SampleConcurrencyOption,
    SetOption,
)


def run_command(
    spec: Annotated[Path, typer.Argument(
        help="A Python file defining assay.Suite(s), a YAML suite or catalog, a directory of "
             "TOML/JSON item files, or a text file of pasted scenarios.")],
    suite: SuiteOption = None,
    db: DbOption = None,
    metadata: MetadataOption = None,
    samples: SamplesOption = None,
    concurrency: ConcurrencyOption = None,
    model: ModelOption = None,
    timeout: TimeoutOption = None,
    baseline: Annotated[str | None, typer.Option(
        help="Compare with this run (it must be completed and compatible).")] = None,
    fail_on_regression: Annotated[bool, typer.Option(
        "--fail-on-regression", help="Exit 1 on signal regressions against the baseline "
                                     "(beyond the latest control run's noise floor, or "
                                     "unmeasured).")]
    = False,
    tolerance: Annotated[float, typer.Option(
        min=0.0, max=1.0, help="Score decrease allowed before it counts as a regression.")]
    = 0.0,
    drift_tolerance: Annotated[float, typer.Option(
        min=0.0, max=1.0, help="Judge-score movement (0–1 scale) below which it is not drift; "
                               "independent of --tolerance.")] = 0.025,
    resume: Annotated[str | None, typer.Option(
        help="Finish an interrupted run: execute only its missing samples.")] = None,
    report: Annotated[Path | None, typer.Option(
        help="Also write a report here (.txt, .md or .json).")] = None,
    quiet: QuietOption = False,
    judge: JudgeOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    votes: VotesOption = None,
    product: ProductOption = None,
    set_: SetOption = None,
    group: GroupOption = None,
    case: CaseOption = None,
    include_production_only: ProductionOption = False,
    agent: AgentOption = None,
    harness: HarnessOption = None,
    gate: GateOption = None,
    sample_concurrency: SampleConcurrencyOption = None,
) -> None:
    """Run a suite, persist every sample, and compare with the latest compatible run."""
    from assay.cli._files import Selection, chosen_suite, require_agent, resolve_gate

    with user_errors():
        selection = Selection(suite=suite, product=product, set=set_, groups=group or (),
                              cases=case or (), include_production_only=include_production_only,
                              agent=agent, harness=harness)
        chosen = chosen_suite(spec, selection, judge_for=None if judge else _set_judge)
        require_agent(chosen)
        chosen_gate = resolve_gate(chosen, gate or ())
        _check_report_path(report)
        run_id = resume or str(uuid.uuid4())
        options: dict[str, Any] = {
            "metadata": metadata_option(metadata), "samples": samples, "concurrency": concurrency,
            "models": model or None, "timeout": timeout, "baseline": baseline,
            "tolerance": tolerance, "drift_tolerance": drift_tolerance, "resume": resume,
            "votes": votes,
            "judge": judge_option(judge, judge_base_url),
            "sample_concurrency": sample_concurrency,
        }
        finished = _execute(chosen, options, database_url(db), quiet, run_id, spec)
    raise typer.Exit(_finish(finished, report, fail_on_regression, chosen_gate))


def _execute(suite: Any, options: dict[str, Any], url: str | None, quiet: bool, run_id: str,
             spec: Path) -> Any:
    from assay.runner.api import run_async
    from assay.runner.progress import default_progress

    try:
        return asyncio.run(run_async(suite, db=url, progress=default_progress(quiet),
                                     run_id=run_id, **options))
    except KeyboardInterrupt:
        print(f"interrupted: run {run_id} was saved as far as it got; finish it with\n"
              f"  {_resume_command(run_id)}")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _finish(run: Any, report: Path | None, fail_on_regression: bool, gate: Any = None) -> int:
    from assay.cli._files import reliability_lines
    from assay.cli._render import make_console, render_run
    from assay.report import Report

    made = Report(run)
    render_run(make_console(), run, made.comparison, made.model_comparison)
    print("\n".join(reliability_lines(run)))
    if report is not None:
        # The run is stored whatever happens to its report file.
        with user_errors():
            made.export(report)
        print(f"report written to {report}")
    summary = run.summary
    failed = summary is not None and (summary.failed or summary.errors)
    if gate is not None:
        # A gate decides about failures (a flaky case above its minimum pass rate is a
        # result), never about errors: an errored sample always fails the run.
        verdict = gate.evaluate(run)
        print("\n".join(verdict.lines()))
        errored = summary is not None and summary.errors > 0
        if errored and verdict.passed:
            print(f"{summary.errors} errored sample(s) fail the run whatever the gate allows")
        failed = not verdict.passed or errored
    # The gate reads signal regressions: beyond the latest control run's noise floor, or
    # unmeasured when there is none.
    regressed = fail_on_regression and made.comparison is not None \
        and bool(made.comparison.signal_regressions)
    if regressed:
        print("regression gate: failed (--fail-on-regression)")
    return EXIT_FAILED if failed or regressed else EXIT_OK


def _resume_command(run_id: str) -> str:
    """The command as typed (selection, database and all) with ``--resume`` for this run."""
    import shlex
    import sys

    words = list(sys.argv[1:])
    if "--resume" in words:  # an interrupted resume names the same run already
        return "assay " + shlex.join(words)
    return "assay " + shlex.join([*words, "--resume", run_id])


def _set_judge(model: str) -> Any:
    """The judge a catalog set names, when no --judge was given."""
    return judge_option(model, None)




def _check_report_path(path: Path | None) -> None:
    from assay.report import format_for

    if path is not None:
        format_for(path)
