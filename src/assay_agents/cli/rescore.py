"""``assay-agents rescore``: grade a stored run's outcomes again (checks, judge), no agent."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from assay_agents.cli._common import (
    GATING,
    DbOption,
    JudgeBaseUrlOption,
    JudgeOption,
    JudgeTimeoutOption,
    MetadataOption,
    QuietOption,
    VotesOption,
    database_url,
    judge_option,
    metadata_option,
    user_errors,
)
from assay_agents.cli.cache import CacheOption
from assay_agents.exit_codes import exit_code_for
from assay_agents.text import visible


def rescore_command(
    run: Annotated[
        str,
        typer.Argument(help="The completed run to grade again: id, unique prefix or suite#N."),
    ],
    judge: JudgeOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    votes: VotesOption = None,
    checks_only: Annotated[
        bool,
        typer.Option(
            "--checks-only", help="Run the deterministic checks alone: no judge is called."
        ),
    ] = False,
    cache: CacheOption = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 on signal regressions against the original run (as the original was "
            "gated, by default).",
            rich_help_panel=GATING,
        ),
    ] = False,
    db: DbOption = None,
    metadata: MetadataOption = None,
    quiet: QuietOption = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List everything, passing samples too.")
    ] = False,
) -> None:
    """Run the checks and the judge again over a stored run's outcomes, calling no agent.

    The cases are the ones the run stored, the answers, actions and observations the ones
    its agent gave; a new run is stored, linked to the original and compared with it, so a
    change of judge or rubric is measured on identical behaviour. By default the run's own
    judge is built again; --judge grades with another. Exit codes as assay-agents run: 0 nothing
    failed, 1 failed samples or a gated regression, 2 bad input (a missing or unfinished
    run), 3 the rescore could not be completed.
    """
    from assay_agents.errors import IncompleteRunError, Terminated
    from assay_agents.evaluation.loop import run_sync
    from assay_agents.evaluation.rescoring import rescore_async
    from assay_agents.load.project import project_config
    from assay_agents.runner.progress import default_progress

    started = time.monotonic()
    with user_errors():
        config = project_config()
        built = judge_option(
            judge, judge_base_url or (config.judge_base_url if judge else None), judge_timeout
        )
        try:
            evaluation = run_sync(
                rescore_async(
                    run,
                    db=database_url(db),
                    judge=built,
                    votes=votes,
                    checks_only=checks_only,
                    cache=cache if cache is not None else config.cache,
                    metadata=metadata_option(metadata),
                    fail_on_regression=fail_on_regression,
                    progress=default_progress(quiet),
                )
            )
        except (KeyboardInterrupt, Terminated) as stop:
            print("interrupted: the rescored run was kept interrupted", file=sys.stderr)
            raise typer.Exit(exit_code_for(stop)) from None
        except IncompleteRunError as error:
            print(f"error: {visible(str(error))}", file=sys.stderr)
            raise typer.Exit(exit_code_for(error)) from None
    from assay_agents.cli.run import _finish

    original = evaluation.run.links.get("rescored_from")
    print(visible(f"rescored run {original}: no agent was called"), file=sys.stderr)
    raise typer.Exit(_finish(evaluation, (), verbose=verbose, started=started, db=db))
