"""What ``run`` and ``validate`` share for file suites.

The selection of cases, the agent entry points given on the command line, and the gate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli._common import GATING, MODELS, SELECTION
from assay.errors import SpecError
from assay.limits import option_range

if TYPE_CHECKING:
    # The spec loads when a command runs, not when `assay --help` is asked.
    from assay.spec import Suite
    from assay.spec.gate import Gate

_GATE_KEYS = {"min_pass_rate": float, "max_side_effect_failures": int, "min_judge_score": float}

# Options shared by the commands that read file suites.
ProductOption = Annotated[
    str | None, typer.Option(help="Catalog product to run.", rich_help_panel=SELECTION)
]
SetOption = Annotated[
    str | None, typer.Option("--set", help="Catalog set to run.", rich_help_panel=SELECTION)
]
GroupOption = Annotated[
    list[str] | None,
    typer.Option(
        "--group", help="Only cases of this group (repeatable).", rich_help_panel=SELECTION
    ),
]
CaseOption = Annotated[
    list[str] | None,
    typer.Option("--case", help="Only this case id (repeatable).", rich_help_panel=SELECTION),
]
ProductionOption = Annotated[
    bool,
    typer.Option(
        "--include-production-only",
        help="Also run cases that need production data.",
        rich_help_panel=SELECTION,
    ),
]
AgentOption = Annotated[
    str | None,
    typer.Option(
        help="Agent for a file suite, as module:attribute (overrides the file's).",
        rich_help_panel=SELECTION,
    ),
]
HarnessOption = Annotated[
    str | None,
    typer.Option(
        help="Harness for a file suite, as module:attribute (overrides the file's).",
        rich_help_panel=SELECTION,
    ),
]
GateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gate",
        help="A gate threshold as KEY=VALUE (repeatable); the keys are min_pass_rate "
        "(deterministic pass rate), max_side_effect_failures and "
        "min_judge_score. Overrides the gate table of suite.toml.",
        rich_help_panel=GATING,
    ),
]
SampleConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        **option_range("sample_concurrency"),
        help="Samples of one case in flight at once (results are the same either way).",
        rich_help_panel=MODELS,
    ),
]


@dataclass(frozen=True, kw_only=True)
class Selection:
    """Command-line choices about which suite and which of its cases."""

    suite: str | None = None
    product: str | None = None
    set: str | None = None
    groups: Sequence[str] = ()
    cases: Sequence[str] = ()
    include_production_only: bool = False
    agent: str | None = None
    harness: str | None = None
    imports: bool = True


def chosen_suite(
    spec: Path, selection: Selection, judge_for: Callable[[str], Any] | None = None
) -> Suite:
    """Load ``spec`` in whatever format it is, pick the suite and select its cases."""
    from assay.cli._common import importable_project
    from assay.cli._load import load_suites, pick_suite
    from assay.load.selection import select
    from assay.load.source import Source

    importable_project()
    agent, agent_name = _entry_agent(selection)
    python = spec.suffix == ".py"
    if python and agent is not None:
        raise SpecError(
            "a Python spec defines its own agent; --agent and --harness are for file suites",
            location=str(spec),
        )
    source = Source(
        product=selection.product,
        set=selection.set,
        agent=agent,
        agent_name=agent_name,
        groups=selection.groups or None,
        cases=selection.cases or None,
        include_production_only=selection.include_production_only,
        judge_for=judge_for,
        imports=selection.imports,
    )
    chosen = pick_suite(load_suites(spec, source), selection.suite, spec)
    if python:
        if selection.product or selection.set:
            raise SpecError("--product and --set choose from a catalog", location=str(spec))
        chosen = select(
            chosen,
            groups=source.groups,
            cases=source.cases,
            include_production_only=selection.include_production_only,
        )
    return chosen


def require_agent(suite: Suite) -> None:
    """Refuse to run a file suite that names no agent, before anything is stored."""
    from assay.load.entry import MissingAgent

    if isinstance(suite.agent, MissingAgent):
        raise SpecError(
            f"names no agent to run: {suite.agent.source} (--agent or --harness "
            "take module:attribute)",
            location=suite.name,
        )


def resolve_gate(suite: Suite, options: Sequence[str]) -> Gate | None:
    """The suite's gate with ``--gate KEY=VALUE`` overrides; ``None`` when neither is set."""
    if not options:
        return suite.gate
    values: dict[str, Any] = {}
    for option in options:
        key, equals, text = option.partition("=")
        key = key.strip()
        if not equals or key not in _GATE_KEYS:
            raise SpecError(
                f"--gate {option!r}: use KEY=VALUE with KEY one of {', '.join(_GATE_KEYS)}",
                field="gate",
            )
        try:
            values[key] = _GATE_KEYS[key](text.strip())
        except ValueError:
            raise SpecError(
                f"--gate {option!r}: {text!r} is not a number", field=f"gate.{key}"
            ) from None
    from assay.spec.gate import Gate

    return (suite.gate or Gate()).updated(**values)


def _entry_agent(selection: Selection) -> tuple[Any, str | None]:
    from assay.agent.harness import harness_agent
    from assay.load.entry import entry_agent, entry_identity, instantiate, resolve

    if selection.agent and selection.harness:
        raise SpecError("give --agent or --harness, not both")
    named = selection.harness or selection.agent
    if not named:
        return None, None
    identity = entry_identity(named, Path.cwd())
    if not selection.imports:
        option = "harness" if selection.harness else "agent"
        return entry_agent(
            named, None, location=f"--{option}", field=option, imports=False
        ), identity
    if selection.harness:
        found = resolve(selection.harness, Path.cwd(), location="--harness", field="harness")
        return harness_agent(instantiate(found)), identity
    return resolve(named, Path.cwd(), location="--agent", field="agent"), identity
