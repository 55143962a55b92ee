"""``assay-agents control``: run a suite twice against the same code and report its noise floor."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay_agents.cli._common import (
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
from assay_agents.cli._files import (
    AgentOption,
    CaseOption,
    GroupOption,
    HarnessOption,
    ProductionOption,
    ProductOption,
    SetOption,
)
from assay_agents.cli._warnings import print_unchecked
from assay_agents.exit_codes import exit_code_for
from assay_agents.text import visible

if TYPE_CHECKING:
    from assay_agents.evaluation.measuring import ControlPair


def control_command(
    spec: Annotated[
        Path,
        typer.Argument(
            help="Any suite assay-agents run accepts: a Python file, a YAML suite or catalog, a "
            "directory "
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

    Later comparisons of the same definition (assay-agents run, assay-agents compare) label every
    change within or beyond this floor. Failed samples do not fail a control run: it measures. A
    pair in which no sample was evaluated measures nothing: no floor is stored, and it exits
    1 unless --allow-unchecked.
    """
    from assay_agents.cli._files import open_for_run, selection_of

    with user_errors():
        # The same selection and project defaults as assay-agents run, so the pair has the
        # fingerprint later runs have and measures what they measure.
        selection = selection_of(
            suite=suite,
            product=product,
            set_=set_,
            group=group,
            case=case,
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
            "flaky_share": flaky_share,
            "allow_unchecked": allow_unchecked,
        }
        print_unchecked(
            chosen,
            judged=options["judge"] is not None or chosen.judge is not None,
            judge_hint="give the pair --judge MODEL",
        )
        pair = _execute(chosen, options, database_url(db), quiet)
    _report(pair)
    raise typer.Exit(pair.verdict.exit_code)


def _execute(suite: Any, options: dict[str, Any], url: str | None, quiet: bool) -> ControlPair:
    from assay_agents.errors import IncompleteRunError, Terminated
    from assay_agents.evaluation import control_pair
    from assay_agents.runner.progress import default_progress

    incomplete = "the control pair is incomplete and will not be used"
    try:
        return control_pair(suite, db=url, progress=default_progress(quiet), **options)
    except (KeyboardInterrupt, Terminated) as stop:
        what = "interrupted" if isinstance(stop, KeyboardInterrupt) else str(stop)
        print(f"{what}: {incomplete}", file=sys.stderr)
        raise typer.Exit(exit_code_for(stop)) from None
    except IncompleteRunError as error:
        print(f"error: {visible(str(error))}; {incomplete}", file=sys.stderr)
        raise typer.Exit(exit_code_for(error)) from None


def _report(pair: ControlPair) -> None:
    """Print the pair, and its floor or why it measured none."""
    from assay_agents.report.prose import noise_floor_line, too_flaky_line, verdict_lines

    first, second = pair.first, pair.second
    print(
        visible(
            f"control pair of {first.suite} · {first.agent} (fingerprint "
            f"{first.fingerprint[:12]}): runs {first.id} and {second.id}"
        )
    )
    for line in verdict_lines(pair.verdict.findings):
        print(line)
    if pair.noise_floor is None:
        return
    if pair.too_flaky:
        print(too_flaky_line(pair.noise_floor, pair.flaky_share))
    print(noise_floor_line(pair.noise_floor))
