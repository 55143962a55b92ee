"""One entry for every file format: which loader a path needs, and the selection after it."""

from __future__ import annotations

from pathlib import Path

from assay_agents.errors import SpecError
from assay_agents.load.catalog import Catalog
from assay_agents.load.items import load_items
from assay_agents.load.pasted import PASTED_SUFFIXES, load_pasted
from assay_agents.load.selection import select
from assay_agents.load.settings import SUITE_FILE
from assay_agents.load.source import Source
from assay_agents.load.suites import YAML_SUFFIXES, read_mapping, suite_document
from assay_agents.spec import Suite


def kind_of(path: Path) -> str:
    """``items``, ``item``, ``pasted``, ``catalog`` or ``suite``, from the path and its top keys.

    A ``.toml`` file other than ``suite.toml``, or a JSON document with an ``input`` and no
    suite or catalog keys, is one item file: it runs alone, with its folder's settings.
    """
    if path.is_dir() or path.name == SUITE_FILE:
        return "items"
    if path.suffix in PASTED_SUFFIXES:
        return "pasted"
    if path.suffix == ".toml":
        return "item"  # one item file, run with its folder's suite.toml
    if path.suffix in (*YAML_SUFFIXES, ".json"):
        raw = read_mapping(path)
        if (
            path.suffix == ".json"
            and isinstance(raw, dict)
            and "input" in raw
            and not ({"suite", "catalog", "products", "groups"} & raw.keys())
        ):
            return "item"
        # Products make a catalog, even one that forgot its key (the error says so).
        marked = isinstance(raw, dict) and ("catalog" in raw or "products" in raw)
        return "catalog" if marked and "suite" not in raw else "suite"
    raise SpecError(
        "is not a suite: give a Python file, a YAML suite or catalog, a directory "
        "of item files or a text file of pasted scenarios",
        location=str(path),
    )


def load_path(path: str | Path, source: Source | None = None) -> Suite:
    """Load any supported suite file (not Python) and apply the selection."""
    given = source or Source()
    file = Path(path)
    if not file.exists():
        raise SpecError("no such file or directory", location=str(file))
    kind = kind_of(file)
    if kind != "catalog" and (given.product or given.set):
        raise SpecError(
            "--product and --set choose from a catalog; this is not one", location=str(file)
        )
    suite = _load(file, kind, given)
    return select(
        suite,
        groups=given.groups,
        cases=given.cases,
        include_production_only=given.include_production_only,
    )


def load_catalog_path(path: Path) -> Catalog:
    """A catalog document (or a suite document as a catalog of one product)."""
    return Catalog.load(path)


def _load(file: Path, kind: str, given: Source) -> Suite:
    if kind == "items":
        folder = file.parent if file.name == SUITE_FILE else file
        return load_items(
            folder, agent=given.agent, agent_name=given.agent_name, imports=given.imports
        )
    if kind == "item":
        return load_items(
            file.parent,
            agent=given.agent,
            agent_name=given.agent_name,
            imports=given.imports,
            only=file,
        )
    if kind == "pasted":
        return load_pasted(file, agent=given.agent, agent_name=given.agent_name)
    if kind == "suite":
        document = suite_document(read_mapping(file), str(file))
        return document.suite(
            agent=given.agent,
            agent_name=given.agent_name,
            location=str(file),
            imports=given.imports,
        )
    catalog = load_catalog_path(file)
    product, chosen = _pick(catalog, given)
    named = catalog.set(product, chosen).judge or {}
    model = named.get("model")
    judge = None
    if given.judge_for is not None and isinstance(model, str) and named.get("kind") != "rules":
        judge = given.judge_for(model)
    return catalog.suite_for(
        product,
        chosen,
        agent=given.agent,
        agent_name=given.agent_name,
        judge=judge,
        imports=given.imports,
    )


def _pick(catalog: Catalog, given: Source) -> tuple[str, str]:
    """The product and set to run: as named, or the only one there is."""
    product = given.product
    if product is None and given.set is not None and len(catalog.products) != 1:
        return catalog.find_set(given.set)  # a set key that one product has
    if product is None:
        if len(catalog.products) != 1:
            raise SpecError(
                "holds several products; choose one with --product (products: "
                f"{', '.join(p.key for p in catalog.products)})",
                location=catalog.key,
                field="product",
            )
        product = catalog.products[0].key
    sets = catalog.product(product).sets
    chosen = given.set
    if chosen is None:
        if len(sets) != 1:
            raise SpecError(
                f"product {product!r} has several sets; choose one with --set "
                f"(sets: {', '.join(s.key for s in sets)})",
                location=catalog.key,
                field="set",
            )
        chosen = sets[0].key
    return product, chosen
