"""``assay-agents validate``: load a suite in any format and report it, running nothing.

Validating a file suite executes no code of the user's: the agent or harness a file names
(``module:attribute``) is shown, not imported, unless ``--import`` asks to check that it
resolves. A Python spec is code, so validating one imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay_agents.cli._common import user_errors
from assay_agents.cli._files import (
    AgentOption,
    CaseOption,
    GroupOption,
    HarnessOption,
    ProductionOption,
    ProductOption,
    SetOption,
)


def validate_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="A Python spec, a YAML suite or catalog, a directory of item files, or a text "
            "file of pasted scenarios."
        ),
    ],
    suite: Annotated[
        str | None, typer.Option(help="Which suite, when a Python file has several.")
    ] = None,
    product: ProductOption = None,
    set_: SetOption = None,
    group: GroupOption = None,
    case: CaseOption = None,
    include_production_only: ProductionOption = False,
    agent: AgentOption = None,
    harness: HarnessOption = None,
    import_: Annotated[
        bool,
        typer.Option(
            "--import",
            help="Also import the agent or harness a file suite names, to check that "
            "it resolves (this runs the module's code).",
        ),
    ] = False,
) -> None:
    """Load a suite strictly and list what would run; exit 2 naming the file and field.

    The agent or harness a file suite names is not imported unless ``--import`` is given.
    """
    from assay_agents.cli._files import selection_of
    from assay_agents.load.opening import open_suite
    from assay_agents.text import visible

    with user_errors():
        if _whole_catalog(path, product, set_):
            if group or case:
                from assay_agents.errors import SpecError

                raise SpecError(
                    "--group and --case select within one set: add --product and --set",
                    location=str(path),
                )
            # Names and keys come from the suite file: shown, never sent to the terminal.
            print(visible("\n".join(_catalog_lines(path, import_)), lines=True))
            return
        selection = selection_of(
            suite=suite,
            product=product,
            set_=set_,
            group=group,
            case=case,
            include_production_only=include_production_only,
            agent=agent,
            harness=harness,
            imports=import_,
        )
        # No judge is made for a catalog set: validating calls no model.
        chosen = open_suite(path, selection, judge_for=None)
        print(visible("\n".join(_suite_lines(path, chosen)), lines=True))


def _whole_catalog(path: Path, product: str | None, set_: str | None) -> bool:
    from assay_agents.load.paths import kind_of

    if product is not None or set_ is not None or path.suffix == ".py" or not path.exists():
        return False
    return kind_of(path) == "catalog"


def _catalog_lines(path: Path, imports: bool) -> list[str]:
    from assay_agents.load.paths import load_catalog_path

    catalog = load_catalog_path(path)
    lines = [f"ok: {path}: catalog {catalog.key!r} · digest {catalog.digest()[:12]}"]
    for product in catalog.products:
        for item in product.sets:
            # Building each set's suite checks every scenario as a case, and with --import
            # that the product's agent resolves.
            made = catalog.suite_for(product.key, item.key, imports=imports)
            lines.append(f"  {product.key}/{item.key}: {len(made.cases)} case(s)")
    return lines


def _suite_lines(path: Path, suite: Any) -> list[str]:
    from assay_agents.load.entry import MissingAgent, UnimportedAgent
    from assay_agents.report.prose import gate_settings

    plan = suite.plan(judged=True)
    agent = "none named" if isinstance(suite.agent, MissingAgent) else suite.agent_name
    if isinstance(suite.agent, UnimportedAgent):
        agent = f"{agent} (not imported; --import checks it)"
    settings = [f"samples {suite.samples}", f"agent {agent}"]
    if suite.gate is not None:
        settings.append(f"gate {gate_settings(suite.gate)}")
    lines = [
        f"ok: {path}: suite {suite.name!r}"
        + (f" version {suite.version}" if suite.version else "")
        + f" · {len(plan.cases)} case(s) · "
        + " · ".join(settings),
        f"fingerprint {suite.fingerprint()[:12]}",
    ]
    for planned in plan.cases:
        checks = [m.name for m in planned.metrics if m.kind == "check"]
        judged = [m.name for m in planned.metrics if m.kind == "judge"]
        line = f"  {planned.case.id}: {', '.join(checks) or 'no check'}"
        # Judge criteria are graded only when the run has a judge.
        lines.append(line + (f" · with a judge: {', '.join(judged)}" if judged else ""))
    from assay_agents.cli._warnings import unchecked_lines

    return lines + unchecked_lines(
        suite,
        judged=suite.judge is not None,
        judge_hint="give the suite a judge, or the run --judge MODEL",
    )
