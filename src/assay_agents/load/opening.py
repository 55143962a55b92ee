"""Opening the suite a path names, as ``assay-agents run`` and :func:`assay.run` both do.

Whatever the format (a Python spec, a YAML suite or catalog, a directory of items, pasted
text), :func:`open_suite` loads it, picks the suite, selects its cases and applies the
project's configuration (see :func:`assay_agents.load.project.configured`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_agents.errors import SpecError

if TYPE_CHECKING:
    from assay_agents.load.config import ProjectConfig
    from assay_agents.spec import Suite


@dataclass(frozen=True, kw_only=True)
class Selection:
    """Which suite a path holds, which of its cases, and which agent runs them.

    ``suite`` names one of a Python file's suites; ``product`` and ``set`` choose from a
    catalog; ``groups``, ``cases`` and ``include_production_only`` select cases; ``agent``
    or ``harness`` (``module:attribute``) overrides the agent a file suite names. With
    ``imports=False`` no agent or harness a file names is imported (a Python spec is code,
    and is always executed).
    """

    suite: str | None = None
    product: str | None = None
    set: str | None = None
    groups: Sequence[str] = ()
    cases: Sequence[str] = ()
    include_production_only: bool = False
    agent: str | None = None
    harness: str | None = None
    imports: bool = True


def _named_judge(model: str) -> Any:
    from assay_agents import judges

    return judges.named(model)


def open_suite(
    path: str | PathLike[str],
    selection: Selection | None = None,
    *,
    config: ProjectConfig | None = None,
    judge_for: Callable[[str], Any] | None = _named_judge,
) -> Suite:
    """The suite at ``path``, its cases selected and the project's defaults applied.

    ``config`` is the project configuration to apply (default: the nearest one upwards);
    ``judge_for(model)`` makes the judge a catalog set names (``None``: the set's judge is
    not made, since the caller brings its own). The project root is put first on
    ``sys.path`` so that the suite and its agent can import the project's modules.
    """
    from assay_agents.load.project import configured, importable_project

    importable_project()
    opened = configured(_chosen(Path(path), selection or Selection(), judge_for), config)
    opened.origin = Path(path)
    return opened


def require_agent(suite: Suite) -> None:
    """Refuse to run a file suite that names no agent, before anything is stored."""
    from assay_agents.load.entry import MissingAgent

    if isinstance(suite.agent, MissingAgent):
        raise SpecError(
            f"names no agent to run: {suite.agent.source} (--agent or --harness "
            "take module:attribute)",
            location=suite.name,
        )


def _chosen(spec: Path, selection: Selection, judge_for: Callable[[str], Any] | None) -> Suite:
    """Load ``spec`` in whatever format it is, pick the suite and select its cases."""
    from assay_agents.load.python_files import load_suites, pick_suite
    from assay_agents.load.selection import select
    from assay_agents.load.source import Source

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
    if not python:
        return chosen
    if selection.product or selection.set:
        raise SpecError("--product and --set choose from a catalog", location=str(spec))
    return select(
        chosen,
        groups=source.groups,
        cases=source.cases,
        include_production_only=selection.include_production_only,
    )


def _entry_agent(selection: Selection) -> tuple[Any, str | None]:
    from assay_agents.agent.harness import harness_agent
    from assay_agents.load.entry import entry_agent, entry_identity, instantiate, resolve

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
