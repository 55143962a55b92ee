"""``assay-agents cache``: what the cache of judge and model calls holds, and clearing it.

A run keeps its judge's replies there with ``--cache`` (or ``cache = true`` in the project
configuration), and the built-in chat agents' model replies with ``--cache-model-calls``, in
the history database, and answers the same calls from it next time.
"""

from __future__ import annotations

from typing import Annotated

import typer

from assay_agents.cli._common import JUDGING, MODELS, DbOption, fail, open_store, user_errors
from assay_agents.text import visible

cache_app = typer.Typer(
    help="Show or clear the cache of judge and model calls (assay-agents run --cache).",
    no_args_is_help=True,
)

#: ``--cache/--no-cache`` as ``assay-agents run`` and ``assay-agents rescore`` take it.
CacheOption = Annotated[
    bool | None,
    typer.Option(
        "--cache/--no-cache",
        help="Answer judge calls made before from the cache in the history database, and keep "
        "the replies of new ones (a cached reply costs nothing). The configuration's cache "
        "key sets the default; off unless set.",
        rich_help_panel=JUDGING,
    ),
]

#: ``--cache-model-calls`` as ``assay-agents run`` takes it.
CacheModelCallsOption = Annotated[
    bool,
    typer.Option(
        "--cache-model-calls",
        help="Answer the built-in chat agents' model calls (agents.openai_chat, "
        "agents.litellm_chat) made before from the cache in the history database, keyed by "
        "the model, the messages, the tools, the options, the sample and the call; the "
        "replies of new ones are kept. A cached call costs nothing (cost source cached). "
        "Off unless given; any other agent is refused.",
        rich_help_panel=MODELS,
    ),
]

KINDS = ("judge", "model")


@cache_app.command("stats")
def stats_command(db: DbOption = None) -> None:
    """Show how many replies the cache keeps, per kind and what answered them."""
    from assay_agents.report.format import count

    with open_store(db) as store, user_errors():
        found = store.cache_stats()
    if not found:
        print("The cache is empty.")
        return
    total = sum(entry.entries for entry in found)
    print(f"{count(total)} cached repl{'y' if total == 1 else 'ies'}")
    for entry in found:
        span = (
            ""
            if entry.first is None or entry.last is None
            else (f", kept {entry.first:%Y-%m-%d %H:%M} to {entry.last:%Y-%m-%d %H:%M} UTC")
        )
        print(visible(f"  {entry.kind} {entry.source}: {count(entry.entries)}{span}"))


@cache_app.command("clear")
def clear_command(
    kind: Annotated[
        str | None,
        typer.Option("--kind", help="Only the replies of this kind: judge or model."),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source", help="Only the replies of this judge or model, as cache stats names it."
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Delete cached replies (all of them unless --kind or --source says which)."""
    if kind is not None and kind not in KINDS:
        fail(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    from assay_agents.report.format import count

    with open_store(db) as store, user_errors():
        cleared = store.cache_clear(kind=kind, source=source)
    print(f"Cleared {count(cleared)} cached repl{'y' if cleared == 1 else 'ies'}.")
