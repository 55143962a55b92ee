"""Suites from files: YAML suites, catalogs, directories of TOML/JSON items, pasted text.

Every format loads into the same :class:`~assay.Suite` and :class:`~assay.Case` model.
Loaders are strict: unknown fields and meaningless combinations are refused with the file,
the field path and the near name (``expect.forbidd: unknown field (did you mean
'forbid'?)``). PyYAML and tomllib are imported only when a file of theirs is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay_agents.lazy import lazy_attributes

if TYPE_CHECKING:
    from assay_agents.load.catalog import Catalog, Product, ScenarioSet
    from assay_agents.load.items import load_items
    from assay_agents.load.merging import CatalogChange, merge_scenarios, save_catalog
    from assay_agents.load.opening import Selection, open_suite
    from assay_agents.load.pasted import ScenarioParser, load_pasted
    from assay_agents.load.paths import load_path
    from assay_agents.load.recorded import read_fixture_file, replaying
    from assay_agents.load.scenario import Expectations, Scenario
    from assay_agents.load.schemas import FORMATS, schema
    from assay_agents.load.selection import select
    from assay_agents.load.source import Source
    from assay_agents.load.suites import load_suite

# Each name loads its module on first use: running a Python suite needs the selection and
# none of the file loaders (pydantic models, YAML, TOML).
_HOMES = {
    name: f"assay_agents.load.{home}"
    for name, home in {
        "Catalog": "catalog",
        "Product": "catalog",
        "ScenarioSet": "catalog",
        "load_items": "items",
        "CatalogChange": "merging",
        "merge_scenarios": "merging",
        "save_catalog": "merging",
        "Selection": "opening",
        "open_suite": "opening",
        "ScenarioParser": "pasted",
        "load_pasted": "pasted",
        "read_fixture_file": "recorded",
        "replaying": "recorded",
        "load_path": "paths",
        "Expectations": "scenario",
        "Scenario": "scenario",
        "FORMATS": "schemas",
        "schema": "schemas",
        "select": "selection",
        "Source": "source",
        "load_suite": "suites",
    }.items()
}

__all__ = [
    "FORMATS",
    "Catalog",
    "CatalogChange",
    "Expectations",
    "Product",
    "Scenario",
    "ScenarioParser",
    "ScenarioSet",
    "Selection",
    "Source",
    "load_items",
    "load_pasted",
    "load_path",
    "load_suite",
    "merge_scenarios",
    "open_suite",
    "read_fixture_file",
    "replaying",
    "save_catalog",
    "schema",
    "select",
]


if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__ = lazy_attributes(__name__, _HOMES)
