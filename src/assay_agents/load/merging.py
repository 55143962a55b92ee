"""Merging pasted scenarios into a catalog's set, or replacing the set's scenarios with them.

A merge treats the paste as an addition: a scenario whose key the paste does not name is
never touched. A keyless scenario takes the next ``<group>_<n>`` the set does not hold
(ignoring case), so merging the same keyless paste twice adds it twice; a key the paste
names and the set holds (compared ignoring case, by ``str.casefold``) is updated in place,
keeping the set's spelling, with what the paste gives and nothing else. A
replacement makes the set hold exactly the paste's scenarios. Production-only scenarios are
left out unless asked for, after keys are made.

>>> change = merge_scenarios(catalog, product="triage", set="smoke", text=paste)  # doctest: +SKIP
>>> change.added, change.updated                                                   # doctest: +SKIP
>>> save_catalog(change.catalog, Path("evals/support_desk.yml"))                   # doctest: +SKIP

Nothing is written until :func:`save_catalog`, which writes the canonical YAML atomically
after checking that it loads back as the same catalog.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from assay_agents.atomic import replace_text
from assay_agents.errors import SpecError
from assay_agents.limits import MAX_SUITE_FILE_BYTES
from assay_agents.load._documents import parse_yaml, read_text, without_bom
from assay_agents.load._foreign_paste import refuse_foreign_document
from assay_agents.load.catalog import Catalog, Product, ScenarioSet, catalog_document
from assay_agents.load.pasted import ScenarioParser
from assay_agents.load.scenario import Scenario
from assay_agents.load.suites import YAML_SUFFIXES, read_mapping
from assay_agents.spec import JSON

__all__ = [
    "CatalogChange",
    "Difference",
    "check_key",
    "differences",
    "merge_scenarios",
    "open_catalog",
    "read_paste",
    "save_catalog",
]


@dataclass(frozen=True, slots=True)
class CatalogChange:
    """What a merge or a replacement changes in one set, and the catalog it makes."""

    catalog: Catalog
    before: Catalog
    product: str
    set: str
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: Production-only scenarios of the paste the selection left out.
    left_out: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether writing the catalog would change its document."""
        return self.catalog.to_yaml() != self.before.to_yaml()

    def to_json(self) -> dict[str, JSON]:
        """The change as plain data, keys by kind, with both digests."""
        return {
            "product": self.product,
            "set": self.set,
            "added": list(self.added),
            "updated": list(self.updated),
            "unchanged": list(self.unchanged),
            "removed": list(self.removed),
            "left_out": list(self.left_out),
            "changed": self.changed,
            "digest_before": self.before.digest(),
            "digest_after": self.catalog.digest(),
        }


def merge_scenarios(
    catalog: Catalog,
    *,
    product: str,
    set: str,
    text: str,
    location: str = "<pasted>",
    replace_all: bool = False,
    key_prefix: str | None = None,
    include_production_only: bool = False,
) -> CatalogChange:
    """The change a paste makes to ``product``/``set`` (created when missing); writes nothing.

    With ``replace_all`` the set holds exactly the paste's scenarios, in its order; otherwise
    the paste is merged: named keys the set holds are updated in place, new keys appended.
    A paste with no scenario selected is refused: a set must hold one.
    """
    check_key(product, "product")
    check_key(set, "set")
    existing = _existing(catalog, product, set)
    parsed = ScenarioParser.scenarios(
        text,
        reserved_keys=() if replace_all else [s.key for s in existing],
        key_prefix=key_prefix,
        location=location,
    )
    # Keys compare ignoring case: a key the set holds in another case names that scenario.
    spelled = {s.key.casefold(): s.key for s in existing}
    parsed = [replace(s, key=spelled.get(s.key.casefold(), s.key)) for s in parsed]
    left_out = tuple(s.key for s in parsed if s.production_only and not include_production_only)
    chosen = [replace(s, group=set) for s in parsed if s.key not in left_out]
    if not chosen:
        why = " (all are production-only; include them to import)" if left_out else ""
        raise SpecError(f"holds no scenarios to import{why}", location=location)
    _refuse_unbuildable(chosen)
    if replace_all:
        scenarios, kinds = _replaced(
            existing, chosen, _kept_as_they_were(existing, parsed, left_out)
        )
    else:
        scenarios, kinds = _merged(existing, chosen)
    return CatalogChange(
        _with_set(catalog, product, set, scenarios),
        catalog,
        product,
        set,
        *kinds,
        left_out=left_out,
    )


def _refuse_unbuildable(scenarios: Sequence[Scenario]) -> None:
    """Refuse, naming the paste and its field, a scenario that would not build its case.

    Writing builds every case of the catalog; checking here makes a preview refuse exactly
    what writing would, and name the paste rather than the catalog.
    """
    for position, scenario in enumerate(scenarios):
        scenario.case(position)


def check_key(key: str, field: str) -> None:
    """Refuse a product or set key that is blank, holds control characters or ``/``.

    Keys are shown one per line and joined with ``/`` (``triage/smoke/orders_1``): a line
    break would forge output and a ``/`` would make the path mean two things.
    """
    if not key.strip():
        raise SpecError("must not be blank", field=field)
    if any(ord(char) < 32 or 127 <= ord(char) < 160 for char in key):
        raise SpecError("must not contain control characters (line breaks, escapes)", field=field)
    if "/" in key:
        raise SpecError(
            "must not contain '/' (it separates product, set and scenario)", field=field
        )


_Kinds = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _merged(
    existing: Sequence[Scenario], pasted: Sequence[Scenario]
) -> tuple[tuple[Scenario, ...], _Kinds]:
    by_key = {s.key: s for s in pasted}
    held = {s.key for s in existing}
    scenarios = [by_key.get(s.key, s) for s in existing]
    scenarios += [s for s in pasted if s.key not in held]
    before = {s.key: s for s in existing}
    added = tuple(s.key for s in pasted if s.key not in held)
    updated = tuple(s.key for s in pasted if s.key in held and before[s.key] != s)
    unchanged = tuple(s.key for s in pasted if s.key in held and before[s.key] == s)
    return tuple(scenarios), (added, updated, unchanged, ())


def _kept_as_they_were(
    existing: Sequence[Scenario], parsed: Sequence[Scenario], left_out: tuple[str, ...]
) -> list[Scenario]:
    """The paste's scenarios in its order, a left-out one the set holds as the set holds it.

    The paste names it, so a replacement must not remove it; left out, it is not changed.
    """
    held = {s.key: s for s in existing}
    return [held.get(s.key, s) if s.key in left_out else s for s in parsed]


def _replaced(
    existing: Sequence[Scenario], pasted: Sequence[Scenario], order: Sequence[Scenario]
) -> tuple[tuple[Scenario, ...], _Kinds]:
    """The set as ``order`` lists it, less the left-out scenarios the set does not hold."""
    _, (added, updated, unchanged, _) = _merged(existing, pasted)
    chosen = {s.key for s in pasted}
    held = {s.key for s in existing}
    scenarios = tuple(s for s in order if s.key in chosen or s.key in held)
    kept = {s.key for s in scenarios}
    removed = tuple(s.key for s in existing if s.key not in kept)
    return scenarios, (added, updated, unchanged, removed)


def _existing(catalog: Catalog, product: str, set: str) -> tuple[Scenario, ...]:
    for item in catalog.products:
        if item.key == product:
            for chosen in item.sets:
                if chosen.key == set:
                    return chosen.scenarios
    return ()


def _with_set(catalog: Catalog, product: str, set: str, scenarios: tuple[Scenario, ...]) -> Catalog:
    """The catalog with the set's scenarios replaced (the product and set made if missing)."""
    products = list(catalog.products)
    owner = next((p for p in products if p.key == product), None)
    if owner is None:
        owner = Product(product)
        products.append(owner)
    sets = list(owner.sets)
    index = next((i for i, s in enumerate(sets) if s.key == set), None)
    if index is None:
        sets.append(ScenarioSet(set, scenarios=scenarios))
    else:
        sets[index] = replace(sets[index], scenarios=scenarios)
    products[products.index(owner)] = replace(owner, sets=tuple(sets))
    return Catalog(
        catalog.key,
        name=catalog.name,
        description=catalog.description,
        metadata=catalog.metadata,
        products=products,
    )


def open_catalog(path: Path) -> Catalog:
    """The catalog a merge writes into: a YAML catalog document, or a new one named after it.

    A suite document, a JSON file or several layered files are refused: writing the result
    back would change what the file is.
    """
    location = str(path)
    if path.suffix not in YAML_SUFFIXES:
        raise SpecError("a catalog to write into is a YAML file (.yaml or .yml)", location=location)
    if not path.exists():
        return Catalog(path.stem)
    raw = read_mapping(path)
    if not isinstance(raw, dict) or "catalog" not in raw:
        raise SpecError(
            "is not a catalog document (catalog: ...); only a catalog is written into",
            location=location,
            field="catalog",
        )
    return Catalog.load(path)


def save_catalog(catalog: Catalog, path: Path) -> str:
    """Write the canonical YAML of ``catalog`` to ``path`` atomically; its digest.

    The text is checked first: it must load back as a catalog whose every set builds its
    suite, so a file that would not load again is never written.
    """
    text = catalog.to_yaml()
    location = str(path)
    reloaded = catalog_document(parse_yaml(text, location), location)
    if reloaded.to_yaml() != text:
        raise SpecError(
            "would not load back as the same catalog; nothing written", location=location
        )
    for product in reloaded.products:
        for item in product.sets:
            reloaded.suite_for(product.key, item.key, imports=False)
    replace_text(path, text)
    return catalog.digest()


def read_paste(path: Path | None, stdin_text: str | None = None) -> tuple[str, str]:
    """The text to merge and where it came from: a file, or standard input's text."""
    if path is None:
        text = without_bom(stdin_text or "")
        if len(text.encode("utf-8", "surrogateescape")) > MAX_SUITE_FILE_BYTES:
            raise SpecError(
                f"is longer than {MAX_SUITE_FILE_BYTES} bytes; a paste is a handful of prompts",
                location="<stdin>",
            )
        refuse_foreign_document(text, "<stdin>")
        return text, "<stdin>"
    text = read_text(path)
    refuse_foreign_document(text, str(path))
    return text, str(path)


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference between two catalogs: its kind, what it is, and the fields that differ."""

    kind: str  # added, removed or changed
    what: str  # product, set or scenario
    path: str  # "triage", "triage/smoke", "triage/smoke/refund_request"
    fields: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        """The difference as plain data."""
        return {
            "kind": self.kind,
            "what": self.what,
            "path": self.path,
            "fields": list(self.fields),
        }


def differences(first: Catalog, second: Catalog) -> list[Difference]:
    """What changes from ``first`` to ``second``: the catalog's own fields, then by key."""
    found: list[Difference] = []
    own = _changed_fields(
        _settings(first.to_json(), "products"), _settings(second.to_json(), "products")
    )
    if own:
        found.append(Difference("changed", "catalog", first.key, own))
    found += _keyed_differences(
        [p.to_json() for p in first.products], [p.to_json() for p in second.products], "product", ""
    )
    return found


_CHILDREN = {"product": ("sets", "set"), "set": ("scenarios", "scenario"), "scenario": None}


def _keyed_differences(
    before: list[dict[str, JSON]], after: list[dict[str, JSON]], what: str, parent: str
) -> list[Difference]:
    old = {str(item["key"]): item for item in before}
    new = {str(item["key"]): item for item in after}
    found: list[Difference] = []
    for key in [*old, *(k for k in new if k not in old)]:
        path = f"{parent}{key}"
        if key not in new:
            found.append(Difference("removed", what, path))
        elif key not in old:
            found.append(Difference("added", what, path))
        else:
            found += _item_differences(old[key], new[key], what, path)
    return found


def _item_differences(
    old: dict[str, JSON], new: dict[str, JSON], what: str, path: str
) -> list[Difference]:
    child = _CHILDREN[what]
    if child is None:
        fields = _changed_fields(old, new)
        return [Difference("changed", what, path, fields)] if fields else []
    name, kind = child
    fields = _changed_fields(_settings(old, name), _settings(new, name))
    if _keys_of(old.get(name)) != _keys_of(new.get(name)) and set(_keys_of(old.get(name))) == set(
        _keys_of(new.get(name))
    ):
        fields = (*fields, f"{name} order")
    found = [Difference("changed", what, path, fields)] if fields else []
    return found + _keyed_differences(
        _listed(old.get(name)), _listed(new.get(name)), kind, f"{path}/"
    )


def _settings(item: dict[str, JSON], children: str) -> dict[str, JSON]:
    return {key: value for key, value in item.items() if key != children}


def _changed_fields(old: dict[str, JSON], new: dict[str, JSON]) -> tuple[str, ...]:
    keys = [*old, *(k for k in new if k not in old)]
    return tuple(key for key in keys if old.get(key) != new.get(key))


def _listed(value: JSON) -> list[dict[str, JSON]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _keys_of(value: JSON) -> list[str]:
    return [str(item.get("key")) for item in _listed(value)]
