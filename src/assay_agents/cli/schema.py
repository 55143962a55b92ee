"""``assay-agents schema``: a file format's JSON Schema, for editors to validate and complete."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from assay_agents.cli._common import user_errors


def schema_command(
    format: Annotated[
        str,
        typer.Argument(help="item (TOML/JSON item files), suite-toml, suite (YAML) or catalog."),
    ],
    output: Annotated[Path | None, typer.Option(help="Write the schema to this file.")] = None,
) -> None:
    """Print the JSON Schema of a file format."""
    from assay_agents.load.schemas import schema

    with user_errors():
        text = json.dumps(schema(format), indent=2, ensure_ascii=False)
    if output is None:
        print(text)
        return
    with user_errors():
        output.write_text(text + "\n", encoding="utf-8")
    print(f"schema written to {output}")
