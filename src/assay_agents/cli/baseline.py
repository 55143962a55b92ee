"""``assay-agents baseline``: pin, show and clear the baseline of a suite and agent.

A pinned baseline wins over the automatic one (the latest earlier passing run); it is kept
in the history, one per suite and agent. ``set`` takes the suite and agent from the run it
pins; ``show`` and ``clear`` take them from a suite file, as ``assay-agents run`` loads it, or from
``--suite NAME --agent NAME`` as ``assay-agents history`` shows them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import (
    DbOption,
    agent_identity,
    db_words,
    fail,
    open_store,
    user_errors,
)
from assay_agents.text import visible

if TYPE_CHECKING:
    from assay_agents.load.config import ProjectConfig

baseline_app = typer.Typer(
    help="Pin, show or clear the baseline runs are compared with.", no_args_is_help=True
)

WHERE_HELP = (
    "Take the automatic baseline only from runs whose metadata has KEY=VALUE "
    "(repeatable), e.g. branch=main."
)
BaselineWhereOption = Annotated[list[str] | None, typer.Option("--baseline-where", help=WHERE_HELP)]
SpecArgument = Annotated[
    Path | None,
    typer.Argument(
        help="The suite file (as assay-agents run takes it); or name the history with --suite and "
        "--agent.",
        show_default=False,
    ),
]
SuiteName = Annotated[
    str | None, typer.Option("--suite", help="The suite's name (with a file: which of its suites).")
]
AgentName = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="The agent's name as assay-agents history shows it, or its entry point "
        "(module:attribute or path.py:attribute) as assay-agents run takes it.",
    ),
]


def where_option(
    values: list[str] | None, config: ProjectConfig | None = None, baseline: str | None = None
) -> dict[str, str] | None:
    """``--baseline-where KEY=VALUE``s, else the configuration's ``baseline_where``."""
    if not values:
        return dict(config.baseline_where) if config and config.baseline_where else None
    if baseline is not None:
        fail(
            "--baseline names the baseline; --baseline-where chooses an automatic one: "
            "give one or the other"
        )
    where: dict[str, str] = {}
    for value in values:
        key, equals, text = value.partition("=")
        if not equals or not key.strip():
            fail(f"--baseline-where {value!r}: use KEY=VALUE, e.g. branch=main")
        where[key.strip()] = text
    return where


@baseline_app.command("set")
def set_command(
    run_id: Annotated[str, typer.Argument(help="The run to pin: an id or a unique prefix.")],
    db: DbOption = None,
) -> None:
    """Pin a completed run as the baseline of its suite and agent."""
    with open_store(db) as store, user_errors():
        run, replaced = store.pin_baseline(run_id)
    also = "" if replaced is None or replaced == run.id else f" (it replaces {replaced[:8]})"
    print(
        visible(
            f"Pinned run {run.id[:8]} as the baseline of suite {run.suite!r} by agent "
            f"{run.agent!r}{also}"
        )
    )


@baseline_app.command("show")
def show_command(
    spec: SpecArgument = None,
    suite: SuiteName = None,
    agent: AgentName = None,
    baseline_where: BaselineWhereOption = None,
    db: DbOption = None,
) -> None:
    """Show the baseline the next run would use and why; without a suite, every pin."""
    from assay_agents.evaluation.baseline import next_baseline
    from assay_agents.load.project import project_config

    with user_errors():
        if spec is None and suite is None and agent is None:
            _list_pins(db)
            return
        names = _identity(spec, suite, agent)
        where = where_option(baseline_where, project_config())
        with open_store(db) as store:
            choice = next_baseline(store, *names, where)
    print(visible(f"{names[0]} · {names[1]}"))
    print(visible(choice.line(db_words(db))))


@baseline_app.command("clear")
def clear_command(
    spec: SpecArgument = None,
    suite: SuiteName = None,
    agent: AgentName = None,
    db: DbOption = None,
) -> None:
    """Unpin the baseline of a suite and agent: the automatic one applies again."""
    from assay_agents.evaluation.queries import no_match

    with user_errors():
        names = _identity(spec, suite, agent)
        with open_store(db) as store:
            cleared = store.clear_pin(*names)
            # Nothing to unpin and nothing by that name: a misspelt name, not a done job.
            unknown = not cleared and not store.history(suite=names[0], agent=names[1], limit=1)
            if unknown:
                fail(
                    f"{no_match(store, *names)}; nothing was unpinned (assay-agents baseline show "
                    "lists the pins)"
                )
    what = f"suite {names[0]!r} by agent {names[1]!r}"
    print(
        visible(
            f"Unpinned the baseline of {what}"
            if cleared
            else f"There was no pinned baseline for {what}"
        )
    )


def _identity(spec: Path | None, suite: str | None, agent: str | None) -> tuple[str, str]:
    """The suite and agent names: from the suite file, else from ``--suite`` and ``--agent``."""
    if spec is not None:
        from assay_agents.load.opening import Selection, open_suite

        chosen = open_suite(spec, Selection(suite=suite), judge_for=None)
        return chosen.name, agent_identity(agent) if agent else chosen.agent_name
    if suite is None or agent is None:
        fail(
            "name the suite: give its file (as assay-agents run takes it), or --suite NAME and "
            "--agent NAME (as assay-agents history shows them)"
        )
    return suite, agent_identity(agent)


def _list_pins(db: str | None) -> None:
    with open_store(db) as store:
        pins = store.pins()
    if not pins:
        print("No pinned baselines.")
        return
    for pin in pins:
        when = pin.pinned_at.strftime("%Y-%m-%d %H:%M UTC")
        print(visible(f"{pin.suite} · {pin.agent}: {pin.run_id[:8]} (pinned {when})"))
