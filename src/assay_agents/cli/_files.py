"""The options of the commands that open a suite (``run``, ``control``, ``validate``).

The selection of cases, the agent entry points given on the command line, and the gate;
the suite itself is opened by :func:`assay_agents.load.open_suite`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay_agents.cli._common import GATING, MODELS, SELECTION
from assay_agents.errors import SpecError
from assay_agents.limits import option_range

if TYPE_CHECKING:
    # The spec loads when a command runs, not when `assay-agents --help` is asked.
    from assay_agents.load.config import ProjectConfig
    from assay_agents.load.opening import Selection
    from assay_agents.spec import Suite
    from assay_agents.spec.gate import Gate

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


def selection_of(
    *,
    suite: str | None,
    product: str | None,
    set_: str | None,
    group: list[str] | None,
    case: list[str] | None,
    include_production_only: bool,
    agent: str | None,
    harness: str | None,
    imports: bool = True,
) -> Selection:
    """The selection the flags name (``--suite`` to ``--harness``): run, control, validate."""
    from assay_agents.load.opening import Selection

    return Selection(
        suite=suite,
        product=product,
        set=set_,
        groups=group or (),
        cases=case or (),
        include_production_only=include_production_only,
        agent=agent,
        harness=harness,
        imports=imports,
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
    from assay_agents.spec.gate import Gate

    return (suite.gate or Gate()).updated(**values)


def open_for_run(
    spec: Path,
    selection: Selection,
    *,
    judge: str | None,
    judge_base_url: str | None,
    judge_timeout: float | None,
) -> tuple[Suite, Any, ProjectConfig]:
    """The suite ``run`` and ``control`` execute, its judge, and the configuration.

    The project configuration is applied to the suite. ``--judge`` overrides the suite's
    judge; ``--judge-base-url`` points ``--judge``, or without it the judge the
    configuration names. The judge is ``None`` when the flags leave the suite's own.
    """
    from dataclasses import replace

    from assay_agents.cli._common import fail, judge_option
    from assay_agents.load.opening import open_suite, require_agent
    from assay_agents.load.project import project_config

    config = project_config()
    if judge is None and judge_base_url is not None:
        if config.judge is None:
            fail("--judge-base-url needs --judge")
        config = replace(config, judge_base_url=judge_base_url)
    # A catalog set's judge is made only when no --judge replaces it.
    chosen = open_suite(spec, selection, config=config, judge_for=None if judge else _set_judge)
    require_agent(chosen)
    if judge is None and judge_base_url is not None:
        _require_configured_judge(chosen, config)
    url = (judge_base_url or config.judge_base_url) if judge else None
    return chosen, judge_option(judge, url, judge_timeout, chosen.judge), config


def _require_configured_judge(suite: Suite, config: ProjectConfig) -> None:
    """``--judge-base-url`` alone points the configured judge: refused for a suite's own."""
    from typing import cast

    from assay_agents.cli._common import fail
    from assay_agents.judging import Judge, judge_identity
    from assay_agents.load.project import project_judge

    configured = project_judge(config)
    own = suite.judge
    if (
        configured is None
        or own is None
        or judge_identity(cast(Judge, own)) != judge_identity(cast(Judge, configured))
    ):
        fail(
            "--judge-base-url points the judge the configuration names, but the suite keeps "
            "its own judge: give --judge too, or set the suite's judge's base_url"
        )


def _set_judge(model: str) -> Any:
    """The judge a catalog set names, when no --judge was given."""
    from assay_agents.cli._common import judge_option

    return judge_option(model, None)
