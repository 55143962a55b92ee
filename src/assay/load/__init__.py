"""Suites from files: YAML suites, catalogs, directories of TOML/JSON items, pasted text.

Every format loads into the same :class:`~assay.Suite` and :class:`~assay.Case` model.
Loaders are strict: unknown fields and meaningless combinations are refused with the file,
the field path and the near name (``expect.forbidd: unknown field (did you mean
'forbid'?)``). PyYAML and tomllib are imported only when a file of theirs is read.
"""

from assay.load.catalog import Catalog, Product, ScenarioSet
from assay.load.items import load_items
from assay.load.pasted import ScenarioParser, load_pasted
from assay.load.paths import Source, load_path
from assay.load.scenario import Expectations, Scenario
from assay.load.schema import FORMATS, schema
from assay.load.selection import select
from assay.load.suites import load_suite

__all__ = [
    "FORMATS",
    "Catalog",
    "Expectations",
    "Product",
    "Scenario",
    "ScenarioParser",
    "ScenarioSet",
    "Source",
    "load_items",
    "load_pasted",
    "load_path",
    "load_suite",
    "schema",
    "select",
]
