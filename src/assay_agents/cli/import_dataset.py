"""``assay-agents import-dataset``: another tool's dataset becomes an Assay YAML suite file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import fail, user_errors

if TYPE_CHECKING:
    from assay_agents.load.datasets import ImportedDataset

_SUFFIX = ".assay.yaml"


def import_dataset_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="A promptfoo config, Inspect samples, pydantic-evals dataset or "
            "DeepEval goldens (YAML, JSON or JSON lines)."
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="promptfoo, inspect, pydantic-evals or deepeval (default: told from the file "
            "where only one tool writes such a file).",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            help=f"The suite file to write (default: beside FILE, its name with {_SUFFIX})."
        ),
    ] = None,
    action_group: Annotated[
        str | None,
        typer.Option(help="The group of the expected actions DeepEval's expected_tools become."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the output file if it exists.")
    ] = False,
) -> None:
    """Write the Assay suite another tool's dataset makes, saying what could not be mapped.

    Each part the suite does not carry (promptfoo's similar, a scorer that lives in
    Python, ...) is one line on standard error, naming where it is in FILE. The suite is
    loaded before it is written, so the file always validates; it names no agent (give
    --agent to assay-agents run).
    """
    from assay_agents.load.datasets import import_dataset
    from assay_agents.text import visible

    with user_errors():
        imported = import_dataset(file, source, action_group=action_group)
        target = _target(file, output, force)
        _write(imported, target, file)
    for item in imported.unmapped:
        print(f"not mapped: {visible(item.line(str(file)))}", file=sys.stderr)
    shown = visible(str(target))
    print(
        f"wrote {imported.scenario_count} scenario(s) from {imported.source} to {shown}"
        + (f"; {len(imported.unmapped)} part(s) not mapped (above)" if imported.unmapped else "")
    )


def _target(file: Path, output: Path | None, force: bool) -> Path:
    """The file to write: ``output``, else beside ``file`` named from its whole stem."""
    target = output if output is not None else file.with_name(file.stem + _SUFFIX)
    if target.suffix.lower() not in (".yaml", ".yml"):
        fail(f"--output {target}: a suite file ends in .yaml or .yml")
    if not target.resolve().parent.is_dir():
        fail(f"--output {target}: its folder does not exist")
    if target.exists() and target.resolve() == file.resolve():
        fail(f"--output {target}: is the dataset being imported; name another file")
    if target.exists() and not force:
        fail(f"--output {target}: exists; give --force to replace it")
    return target


def _write(imported: ImportedDataset, target: Path, file: Path) -> None:
    """Write the suite through a file beside ``target``, loaded first so it always loads."""
    import os
    import tempfile

    from assay_agents.errors import SpecError
    from assay_agents.load.suites import load_suite

    folder = target.parent if str(target.parent) else Path(".")
    handle, name = tempfile.mkstemp(prefix=".import-", suffix=".yaml", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as written:
            written.write(imported.to_yaml())
        _follow_umask(name)
        try:
            load_suite(name, imports=False)
        except SpecError as error:
            # What the file holds made a suite that does not load (a value out of range).
            raise SpecError(
                f"the suite it makes does not load: {error.detail}",
                location=str(file),
                field=error.field,
            ) from None
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _follow_umask(name: str) -> None:
    """Give the file the mode a new file gets (mkstemp makes it private, 0600)."""
    import os

    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)
