"""JSON Schemas of the file formats, so editors can validate and complete them.

>>> sorted(FORMATS)
['catalog', 'item', 'suite', 'suite-toml']
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assay_agents.errors import SpecError
from assay_agents.load.formats import CatalogModel, ItemModel, SettingsModel, SuiteDocModel
from assay_agents.text import suggestion

#: Format name → (model, title).
FORMATS: dict[str, tuple[type[BaseModel], str]] = {
    "item": (ItemModel, "Assay item file (TOML or JSON)"),
    "suite-toml": (SettingsModel, "Assay suite.toml (settings of a directory of items)"),
    "suite": (SuiteDocModel, "Assay YAML suite"),
    "catalog": (CatalogModel, "Assay catalog (YAML)"),
}

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema(format: str) -> dict[str, Any]:
    """The JSON Schema of one format (see :data:`FORMATS`)."""
    if format not in FORMATS:
        raise SpecError(
            f"unknown format {format!r}{suggestion(format, FORMATS)}; formats: "
            f"{', '.join(sorted(FORMATS))}",
            field="format",
        )
    model, title = FORMATS[format]
    generated = model.model_json_schema()
    if format == "item":
        _allow_channels(generated)
    return {"$schema": _DRAFT, **generated, "title": title}


def _allow_channels(generated: dict[str, Any]) -> None:
    # Channels are named by suite.toml, so [expect] admits any further key holding a list.
    expect = generated["$defs"]["ExpectModel"]
    expect["additionalProperties"] = {
        "type": "array",
        "description": "An observation channel declared in suite.toml (channels = [...]): "
        "exactly these items, in order; [] asserts none.",
    }
