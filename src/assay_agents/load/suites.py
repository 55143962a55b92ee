"""YAML suites: groups of scenarios; later documents layer over earlier ones by key.

.. code-block:: yaml

    suite: support_bot
    groups:
      - key: orders
        name: Orders
        scenarios:
          - key: orders_1
            prompt: Where is my order?
            expect: {tools: [lookup_order]}

A deployment narrows or extends a team's suite with a later file: a scenario whose key is
already there is replaced (wherever it moves), a new one is appended, a group keeps its place.
A later file may leave out ``suite:``: it layers over the first under the first's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._documents import parse_json, parse_yaml, read_text
from assay_agents.load._errors import validate
from assay_agents.load.entry import MissingAgent, entry_agent, entry_identity
from assay_agents.load.formats import SuiteDocModel
from assay_agents.load.scenario import Origin, Scenario, scenario_from
from assay_agents.spec import Suite

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class SuiteDocument:
    """A YAML suite after layering: its identity, its groups and its scenarios by key."""

    name: str
    description: str | None = None
    version: str | None = None
    agent: str | None = None
    agent_folder: Path | None = None
    agent_name: str | None = None
    groups: dict[str, str | None] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)

    def layered(self, later: SuiteDocument) -> SuiteDocument:
        """The document with ``later`` over it, key by key."""
        groups = dict(self.groups)
        for key, name in later.groups.items():
            groups[key] = name if name is not None else groups.get(key)
        scenarios = dict(self.scenarios)
        scenarios.update(later.scenarios)
        agent = later.agent or self.agent
        return SuiteDocument(
            name=later.name,
            description=later.description or self.description,
            version=later.version or self.version,
            agent=agent,
            agent_folder=later.agent_folder if later.agent else self.agent_folder,
            agent_name=later.agent_name or self.agent_name,
            groups=groups,
            scenarios=scenarios,
        )

    def suite(
        self,
        *,
        agent: Any = None,
        agent_name: str | None = None,
        location: str = "",
        imports: bool = True,
    ) -> Suite:
        """The suite these scenarios make; ``agent`` overrides the document's entry point.

        Without ``imports`` the entry point is not imported.
        """
        if agent is None and self.agent is not None:
            agent = entry_agent(
                self.agent, self.agent_folder, location=location, field="agent", imports=imports
            )
            agent_name = (
                agent_name or self.agent_name or entry_identity(self.agent, self.agent_folder)
            )
        if agent is None:
            agent = MissingAgent(f"{location} (set agent: module:attribute, or pass --agent)")
            agent_name = self.agent_name or "unspecified"
        suite = Suite(
            self.name,
            agent=agent,
            agent_name=agent_name,
            description=self.description,
            version=self.version,
        )
        for position, scenario in enumerate(self.scenarios.values()):
            suite.add(scenario.case(position))
        return suite


def load_suite(
    path: str | Path,
    *more: str | Path,
    agent: Any = None,
    groups: Iterable[str] | None = None,
    include_production_only: bool = True,
    imports: bool = True,
) -> Suite:
    """Load a suite from files: YAML suites (layered), a directory of items, or pasted text.

    Later YAML files layer over earlier ones by key. ``groups`` keeps only those groups and
    ``include_production_only=False`` drops scenarios that need production data. ``agent``
    (a callable) overrides the agent the files name; ``imports=False`` leaves the module it
    names unimported.
    """
    from assay_agents.load.pasted import PASTED_SUFFIXES, load_pasted
    from assay_agents.load.selection import select

    first = Path(path)
    if first.is_dir() or first.suffix in PASTED_SUFFIXES:
        if more:
            raise SpecError(
                "only YAML suites are layered; load one directory or paste at a time",
                location=str(first),
            )
        from assay_agents.load.items import load_items

        loaded = (
            load_items(first, agent=agent, imports=imports)
            if first.is_dir()
            else load_pasted(first, agent=agent)
        )
    else:
        document = read_suite_documents([first, *map(Path, more)])
        loaded = document.suite(agent=agent, location=str(first), imports=imports)
    return select(loaded, groups=groups, include_production_only=include_production_only)


def read_suite_documents(paths: Iterable[Path]) -> SuiteDocument:
    """Parse and layer YAML suite files, earliest first (a later one may leave out its name)."""
    first, *rest = list(paths)
    layered = suite_document(read_mapping(first), str(first))
    for path in rest:
        raw = named(read_mapping(path), "suite", layered.name)
        layered = layered.layered(suite_document(raw, str(path)))
    return layered


def named(raw: Any, name_key: str, name: str) -> Any:
    """A later document that names no ``suite:`` (or ``catalog:``) takes the first's name."""
    if isinstance(raw, dict) and name_key not in raw:
        return {name_key: name, **raw}
    return raw


def read_mapping(path: Path) -> Any:
    """A YAML (or JSON) document's data."""
    location = str(path)
    if path.suffix not in (*YAML_SUFFIXES, ".json"):
        raise SpecError("is not a YAML suite or catalog (.yaml, .yml or .json)", location=location)
    text = read_text(path)
    return parse_json(text, location) if path.suffix == ".json" else parse_yaml(text, location)


def suite_document(raw: Any, location: str, prefix: str = "") -> SuiteDocument:
    """A validated suite document, with duplicate keys refused."""
    model = validate(SuiteDocModel, raw, location, prefix=prefix)
    groups: dict[str, str | None] = {}
    scenarios: dict[str, Scenario] = {}
    for g_index, group in enumerate(model.groups):
        group_path = f"{prefix}{'.' if prefix else ''}groups[{g_index}]"
        if group.key in groups:
            raise SpecError(
                f"duplicate group key {group.key!r}", location=location, field=f"{group_path}.key"
            )
        groups[group.key] = group.name
        for s_index, item in enumerate(group.scenarios):
            origin = Origin(location, f"{group_path}.scenarios[{s_index}]")
            if item.key in scenarios:
                raise SpecError(
                    f"duplicate scenario key {item.key!r}",
                    location=location,
                    field=f"{origin.path}.key",
                )
            scenarios[item.key] = scenario_from(item, group.key, origin)
    folder = Path(location).parent if model.agent else None
    return SuiteDocument(
        model.suite,
        model.description,
        model.version,
        model.agent,
        folder,
        model.agent_name,
        groups,
        scenarios,
    )
