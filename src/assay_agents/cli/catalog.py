"""``assay-agents catalog``: merge pasted scenarios into a catalog, export it, compare copies.

``import`` writes the catalog's canonical YAML atomically (a crash leaves the old file whole)
and ``--preview`` shows what it would change without writing. Bad input exits 2 naming the
file and the field, and changes nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import fail, user_errors
from assay_agents.exit_codes import ExitCode
from assay_agents.text import visible

if TYPE_CHECKING:
    from assay_agents.load.merging import CatalogChange, Difference

catalog_app = typer.Typer(
    help="Merge pasted scenarios into a catalog, export it, or compare two catalogs.",
    no_args_is_help=True,
)


@catalog_app.command("import")
def import_command(
    source: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="Pasted scenarios: lines, or a YAML or JSON document (-: standard input).",
        ),
    ],
    into: Annotated[
        Path, typer.Option("--into", help="The catalog (YAML) to write into; made if missing.")
    ],
    product: Annotated[str, typer.Option(help="The product whose set receives them.")],
    set_: Annotated[str, typer.Option("--set", help="The set that receives them.")],
    preview: Annotated[
        bool, typer.Option("--preview", help="Show what would change; write nothing.")
    ] = False,
    replace_all: Annotated[
        bool,
        typer.Option("--replace", help="The set holds exactly these scenarios (others removed)."),
    ] = False,
    key_prefix: Annotated[
        str | None, typer.Option(help="Put this in front of every key the import makes.")
    ] = None,
    include_production_only: Annotated[
        bool,
        typer.Option(
            "--include-production-only",
            help="Keep production-only scenarios (left out by default).",
        ),
    ] = False,
) -> None:
    """Merge scenarios into a catalog's set, or replace the set's scenarios with them.

    A scenario without a key takes the next GROUP_N the set does not hold, so importing the
    same paste twice adds it twice; a key the paste names and the set holds is updated in place.
    """
    from assay_agents.load.merging import (
        check_key,
        merge_scenarios,
        open_catalog,
        read_paste,
        save_catalog,
    )

    with user_errors():
        check_key(product, "--product")
        check_key(set_, "--set")
        path = None if source == "-" else Path(source)
        text, location = read_paste(path, sys.stdin.read() if path is None else None)
        change = merge_scenarios(
            open_catalog(into),
            product=product,
            set=set_,
            text=text,
            location=location,
            replace_all=replace_all,
            key_prefix=key_prefix,
            include_production_only=include_production_only,
        )
        lines = change_lines(change, into, preview=preview)
        if not preview and change.changed:
            digest = save_catalog(change.catalog, into)
            lines.append(f"wrote {into} · digest {digest}")
    print(visible("\n".join(lines), lines=True))


def change_lines(change: CatalogChange, into: Path, *, preview: bool) -> list[str]:
    """What a merge changes, by kind and key, as lines for the terminal."""
    doing = "would change" if preview else "changes"
    head = f"{into}: {change.product}/{change.set} {doing}:"
    if not change.changed:
        head = f"{into}: {change.product}/{change.set} is unchanged"
    lines = [head]
    for kind in ("added", "updated", "removed", "unchanged"):
        keys = getattr(change, kind)
        if keys:
            lines.append(f"  {kind} ({len(keys)}): {', '.join(keys)}")
    if change.left_out:
        lines.append(
            f"  left out (production-only; --include-production-only keeps them): "
            f"{', '.join(change.left_out)}"
        )
    if preview:
        lines.append(
            f"digest {change.before.digest()[:12]} → {change.catalog.digest()[:12]} "
            "(preview: nothing written)"
        )
    return lines


@catalog_app.command("export")
def export_command(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="CATALOG", help="Catalog files; later ones layer over earlier."),
    ],
    format: Annotated[str, typer.Option("--format", "-f", help="yaml or json.")] = "yaml",
) -> None:
    """Print the canonical document of a catalog (keys in a fixed order, empty values dropped)."""
    from assay_agents.load.catalog import Catalog

    if format not in ("yaml", "json"):
        fail(f"--format {format!r}: use yaml or json")
    with user_errors():
        catalog = Catalog.load(*paths)
    text = (
        json.dumps(catalog.to_json(), indent=2, ensure_ascii=True) + "\n"
        if format == "json"
        else catalog.to_yaml()
    )
    # Piped, the document is written as it is; on a terminal its strings are shown, not obeyed.
    print(visible(text, lines=True) if sys.stdout.isatty() else text, end="")


@catalog_app.command("diff")
def diff_command(
    first: Annotated[Path, typer.Argument(metavar="A", help="A catalog file.")],
    second: Annotated[Path, typer.Argument(metavar="B", help="The catalog file to compare.")],
) -> None:
    """Tell two catalogs apart: by digest, then product by product and scenario by scenario.

    Exits 0 when they are the same catalog, 1 when they differ.
    """
    from assay_agents.load.catalog import Catalog
    from assay_agents.load.merging import differences

    with user_errors():
        before, after = Catalog.load(first), Catalog.load(second)
    digests = before.digest(), after.digest()
    if digests[0] == digests[1]:
        print(visible(f"same catalog: digest {digests[0]}"))
        return
    lines = [f"A {first}: digest {digests[0]}", f"B {second}: digest {digests[1]}"]
    lines += [difference_line(item) for item in differences(before, after)]
    print(visible("\n".join(lines), lines=True))
    raise typer.Exit(ExitCode.FAILED)


def difference_line(item: Difference) -> str:
    """``  changed  scenario triage/smoke/refund (prompt, expect)``."""
    fields = f" ({', '.join(item.fields)})" if item.fields else ""
    return f"  {item.kind:<8} {item.what} {item.path}{fields}"
