"""Catalogs: every agent a team ships, as products with the sets of scenarios each must answer.

A catalog lives in the repository next to the agents it tests, so the prompts are versioned
with the code. Keys the format does not define (``owner_team``, ``repository``, ...) are
kept as metadata on the catalog, product or set they sit on, except a key one or two edits
from a defined one (``scenario:`` for ``scenarios:``), which is refused as a misspelling.
Several documents layer by key (a later one may leave out ``catalog:`` or ``suite:`` and
layer over the first under its name), and a suite document (``suite:`` and ``groups:``) is a
catalog of one product whose sets are its groups. Once layered, every product needs a set
and every set a scenario.

>>> catalog = Catalog.load("evals/support_desk.yml")             # doctest: +SKIP
>>> suite = catalog.suite_for("triage", "smoke", agent=triage)   # doctest: +SKIP
>>> suite = catalog.suite_for("smoke", agent=triage)   # a set key found in one product only
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._errors import near_miss, validate
from assay_agents.load.entry import MissingAgent, entry_agent, entry_identity
from assay_agents.load.formats import CatalogModel, ProductModel, SetModel, extras
from assay_agents.load.scenario import Origin, Scenario, scenario_from, sorted_json
from assay_agents.load.suites import SuiteDocument, named, read_mapping, suite_document
from assay_agents.spec import JSON, Suite, portable
from assay_agents.text import suggestion


@dataclass(frozen=True, slots=True)
class ScenarioSet:
    """A named set of scenarios; its judge and criteria become the run's when it is run."""

    key: str
    name: str | None = None
    judge: dict[str, JSON] | None = None
    criteria: tuple[str, ...] = ()
    metadata: dict[str, JSON] = field(default_factory=dict)
    scenarios: tuple[Scenario, ...] = ()

    def layered(self, later: ScenarioSet) -> ScenarioSet:
        """The set with ``later`` over it: fields it sets, metadata, scenarios by key."""
        return ScenarioSet(
            self.key,
            later.name or self.name,
            later.judge or self.judge,
            later.criteria or self.criteria,
            {**self.metadata, **later.metadata},
            _by_key(self.scenarios, later.scenarios),
        )

    def to_json(self) -> dict[str, JSON]:
        """The canonical form (fixed key order, empty values dropped)."""
        return _dropping_empty(
            {
                "key": self.key,
                "name": self.name,
                "judge": self.judge,
                "criteria": list(self.criteria),
                **sorted_metadata(self.metadata),
                "scenarios": [scenario.to_json() for scenario in self.scenarios],
            }
        )


@dataclass(frozen=True, slots=True)
class Product:
    """One agent and its sets."""

    key: str
    name: str | None = None
    agent: str | None = None
    description: str | None = None
    metadata: dict[str, JSON] = field(default_factory=dict)
    sets: tuple[ScenarioSet, ...] = ()
    agent_folder: Path | None = field(default=None, compare=False)

    def layered(self, later: Product) -> Product:
        """The product with ``later`` over it."""
        return Product(
            self.key,
            later.name or self.name,
            later.agent or self.agent,
            later.description or self.description,
            {**self.metadata, **later.metadata},
            _by_key(self.sets, later.sets),
            later.agent_folder if later.agent else self.agent_folder,
        )

    def to_json(self) -> dict[str, JSON]:
        """The canonical form."""
        return _dropping_empty(
            {
                "key": self.key,
                "name": self.name,
                "agent": self.agent,
                "description": self.description,
                **sorted_metadata(self.metadata),
                "sets": [item.to_json() for item in self.sets],
            }
        )


class Catalog:
    """Products, each with sets of scenarios; load with :meth:`load`, run with :meth:`suite_for`.

    ``to_yaml()`` writes the canonical document (keys in a fixed order, empty values
    dropped) and ``digest()`` is the SHA-256 of that text, so two copies of a catalog can be
    compared without diffing them.
    """

    def __init__(
        self,
        key: str,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, JSON] | None = None,
        products: Iterable[Product] = (),
    ) -> None:
        self.key = key
        self.name = name
        self.description = description
        self.metadata: dict[str, JSON] = dict(metadata or {})
        self.products: tuple[Product, ...] = tuple(products)

    @classmethod
    def load(cls, *paths: str | Path) -> Catalog:
        """Load and layer catalog (or suite) documents, earliest first."""
        if not paths:
            raise SpecError("Catalog.load needs at least one path")
        first = read_mapping(Path(paths[0]))
        catalogs = [catalog_document(first, str(paths[0]))]
        for path in paths[1:]:
            catalogs.append(
                catalog_document(
                    _over(first, read_mapping(Path(path)), str(path), catalogs[0].key), str(path)
                )
            )
        layered = cls.layer(catalogs)
        _require_scenarios(layered, " + ".join(map(str, paths)))
        return layered

    @classmethod
    def layer(cls, catalogs: Iterable[Catalog]) -> Catalog:
        """Later catalogs over earlier ones: products, sets and scenarios by key."""
        listed = list(catalogs)
        first = listed[0]
        merged = cls(
            first.key,
            name=first.name,
            description=first.description,
            metadata=first.metadata,
            products=first.products,
        )
        for later in listed[1:]:
            merged = cls(
                later.key,
                name=later.name or merged.name,
                description=later.description or merged.description,
                metadata={**merged.metadata, **later.metadata},
                products=_by_key(merged.products, later.products),
            )
        return merged

    def product(self, key: str) -> Product:
        """One product by key."""
        for product in self.products:
            if product.key == key:
                return product
        raise SpecError(
            f"no product {key!r}{suggestion(key, self._keys(self.products))} "
            f"(products: {', '.join(self._keys(self.products)) or 'none'})",
            location=self.key,
            field="product",
        )

    def set(self, product: str, key: str) -> ScenarioSet:
        """One set of one product."""
        sets = self.product(product).sets
        for item in sets:
            if item.key == key:
                return item
        names = self._keys(sets)
        raise SpecError(
            f"product {product!r} has no set {key!r}{suggestion(key, names)} "
            f"(sets: {', '.join(names) or 'none'})",
            location=self.key,
            field="set",
        )

    def scenarios(
        self,
        *,
        product: str | None = None,
        set: str | None = None,
        include_production_only: bool = True,
    ) -> list[Scenario]:
        """Scenarios of every product and set, or of the ones named."""
        products = self.products if product is None else (self.product(product),)
        found = [
            scenario
            for item in products
            for chosen in item.sets
            if set is None or chosen.key == set
            for scenario in chosen.scenarios
        ]
        return [s for s in found if include_production_only or not s.production_only]

    def suite_for(
        self,
        product: str,
        set: str | None = None,
        *,
        agent: Any = None,
        agent_name: str | None = None,
        judge: Any = None,
        imports: bool = True,
    ) -> Suite:
        """The suite ``catalog/product/set``, or ``catalog/product`` without a set.

        The set's scenarios run against the product's agent (``agent`` overrides its entry
        point) with the set's criteria and ``judge``. Given one key that names a product,
        ``suite_for("triage")`` is the product's suite: its groups are the sets, each set's
        criteria going with its scenarios. Otherwise ``suite_for("smoke")`` finds the set by
        its key alone when exactly one product has it. Without ``imports`` the entry point
        is not imported.
        """
        if set is None and product not in self._keys(self.products):
            product, set = self.find_set(product)
        owner = self.product(product)
        if agent is None and owner.agent is not None and ":" in owner.agent:
            agent = entry_agent(
                owner.agent, owner.agent_folder, location=self.key, field="agent", imports=imports
            )
            agent_name = agent_name or entry_identity(owner.agent, owner.agent_folder)
        sets = owner.sets if set is None else (self.set(product, set),)
        shared = {item.criteria for item in sets}
        # Criteria all the sets share are the suite's; otherwise each set's go with its cases.
        common = list(next(iter(shared))) if len(shared) == 1 else []
        suite = Suite(
            "/".join([self.key, owner.key, *([] if set is None else [set])]),
            agent=agent
            if agent is not None
            else MissingAgent(
                f"product {owner.key!r} (give it agent: module:attribute, or pass --agent)"
            ),
            agent_name=agent_name or owner.agent or None,
            judge=judge,
            criteria=common or None,
        )
        _refuse_shared_keys(owner, sets, self.key)
        for item in sets:
            criteria = item.criteria if len(shared) > 1 else ()
            for scenario in item.scenarios:
                case = replace(scenario, group=item.key).case(len(suite.cases), criteria)
                suite.add(case)
        return suite

    def find_set(self, key: str) -> tuple[str, str]:
        """The (product, set) one key names.

        A set key that exactly one product has, or a product that has one set; anything else
        is an error that lists the sets.
        """
        pairs = _pairs(self)
        found = [pair for pair in pairs if pair[1] == key]
        found += [
            (p.key, p.sets[0].key)
            for p in self.products
            if p.key == key and len(p.sets) == 1 and (p.key, p.sets[0].key) not in found
        ]
        if len(found) == 1:
            return found[0]
        everything = [f"{p}/{s}" for p, s in pairs]
        if found:
            detail = f"{key!r} names several sets ({', '.join(f'{p}/{s}' for p, s in found)})"
        else:
            detail = f"no set {key!r}{suggestion(key, [s for _, s in pairs])}"
        raise SpecError(
            f"{detail}; name the product and the set (sets: {', '.join(everything) or 'none'})",
            location=self.key,
            field="set",
        )

    def to_json(self) -> dict[str, JSON]:
        """The canonical document as data."""
        return _dropping_empty(
            {
                "catalog": self.key,
                "name": self.name,
                "description": self.description,
                **sorted_metadata(self.metadata),
                "products": [product.to_json() for product in self.products],
            }
        )

    def to_yaml(self) -> str:
        """The canonical YAML document."""
        import yaml

        return yaml.safe_dump(
            self.to_json(), sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )

    def digest(self) -> str:
        """SHA-256 (hex) of :meth:`to_yaml`."""
        return hashlib.sha256(self.to_yaml().encode("utf-8")).hexdigest()

    @staticmethod
    def _keys(items: Iterable[Any]) -> list[str]:
        return [item.key for item in items]

    def __repr__(self) -> str:
        return f"Catalog({self.key!r}, products={[p.key for p in self.products]})"


def catalog_document(raw: Any, location: str) -> Catalog:
    """A catalog from one validated document; a suite document is a catalog of one product."""
    if isinstance(raw, dict) and "suite" in raw and "catalog" not in raw:
        return _from_suite(suite_document(raw, location))
    if isinstance(raw, dict) and "products" in raw and "catalog" not in raw:
        raise SpecError(
            "required field is missing (a catalog's key: catalog: ...)",
            location=location,
            field="catalog",
        )
    if not isinstance(raw, dict) or "catalog" not in raw:
        raise SpecError(
            "is neither a catalog (catalog: ...) nor a suite (suite: ...)", location=location
        )
    model = validate(CatalogModel, raw, location)
    _unique_keys([p.key for p in model.products], location, "products")
    products = [
        _product(item, location, f"products[{index}]") for index, item in enumerate(model.products)
    ]
    return Catalog(
        model.catalog,
        name=model.name,
        description=model.description,
        metadata=_metadata(model, location, ""),
        products=products,
    )


def _over(first: Any, later: Any, location: str, name: str) -> Any:
    """A later document without a name of its own, named to layer over the first."""
    if not isinstance(later, dict) or "catalog" in later or "suite" in later:
        return later
    if isinstance(first, dict) and "suite" in first and "catalog" not in first:
        return named(later, "suite", name)
    if "groups" in later:
        raise SpecError(
            f"groups layer over a suite; {name!r} is a catalog, so give products",
            location=location,
            field="groups",
        )
    return named(later, "catalog", name)


def _refuse_shared_keys(owner: Product, sets: Iterable[ScenarioSet], location: str) -> None:
    """Refuse a scenario key two sets share: in one suite, a key is one case."""
    seen: dict[str, str] = {}
    for item in sets:
        for scenario in item.scenarios:
            first = seen.setdefault(scenario.key, item.key)
            if first != item.key:
                raise SpecError(
                    f"scenario key {scenario.key!r} is in sets {first} and {item.key}; "
                    "the product's suite needs each key once (run one set, or rename it)",
                    location=location,
                )


def _pairs(catalog: Catalog) -> list[tuple[str, str]]:
    return [(p.key, s.key) for p in catalog.products for s in p.sets]


def _product(model: ProductModel, location: str, path: str) -> Product:
    _unique_keys([s.key for s in model.sets], location, f"{path}.sets")
    sets = tuple(
        _set(item, location, f"{path}.sets[{index}]") for index, item in enumerate(model.sets)
    )
    folder = Path(location).parent if model.agent else None
    return Product(
        model.key,
        model.name,
        model.agent,
        model.description,
        _metadata(model, location, path),
        sets,
        folder,
    )


def _set(model: SetModel, location: str, path: str) -> ScenarioSet:
    _unique_keys([s.key for s in model.scenarios], location, f"{path}.scenarios")
    scenarios = tuple(
        scenario_from(item, model.key, Origin(location, f"{path}.scenarios[{i}]"))
        for i, item in enumerate(model.scenarios)
    )
    judge = None if model.judge is None else model.judge.model_dump(exclude_none=True)
    return ScenarioSet(
        model.key,
        model.name,
        judge,
        tuple(model.criteria or ()),
        _metadata(model, location, path),
        scenarios,
    )


def _from_suite(document: SuiteDocument) -> Catalog:
    groups = {
        key: [s for s in document.scenarios.values() if s.group == key] for key in document.groups
    }
    sets = tuple(
        ScenarioSet(key, document.groups[key], scenarios=tuple(items))
        for key, items in groups.items()
    )
    product = Product(
        document.name,
        None,
        document.agent,
        document.description,
        sets=sets,
        agent_folder=document.agent_folder,
    )
    return Catalog(document.name, description=document.description, products=[product])


def _metadata(model: Any, location: str, path: str) -> dict[str, JSON]:
    for key in extras(model):
        near = near_miss(key, type(model).model_fields)
        if near is not None:
            raise SpecError(
                f"unknown field (did you mean {near!r}?); a key this close to "
                "one the format defines is refused rather than kept as metadata",
                location=location,
                field=f"{path}.{key}" if path else key,
            )
    try:
        converted = portable(extras(model), path or "metadata")
    except SpecError as error:
        raise SpecError(error.detail, location=location, field=error.field) from None
    assert isinstance(converted, dict)
    return converted


def _require_scenarios(catalog: Catalog, location: str) -> None:
    """Refuse a product without sets and a set without scenarios: they would test nothing."""
    for index, product in enumerate(catalog.products):
        if not product.sets:
            raise SpecError(
                f"product {product.key!r} has no sets",
                location=location,
                field=f"products[{index}].sets",
            )
        for number, item in enumerate(product.sets):
            if not item.scenarios:
                raise SpecError(
                    f"set {item.key!r} of product {product.key!r} has no scenarios",
                    location=location,
                    field=f"products[{index}].sets[{number}].scenarios",
                )


def _unique_keys(keys: list[str], location: str, path: str) -> None:
    seen: set[str] = set()
    for index, key in enumerate(keys):
        if key in seen:
            raise SpecError(
                f"duplicate key {key!r}", location=location, field=f"{path}[{index}].key"
            )
        seen.add(key)


def _by_key(earlier: Iterable[Any], later: Iterable[Any]) -> tuple[Any, ...]:
    """Merge two keyed sequences: a key already there is layered (or replaced) in place."""
    merged = {item.key: item for item in earlier}
    for item in later:
        before = merged.get(item.key)
        layer = getattr(before, "layered", None)
        merged[item.key] = layer(item) if callable(layer) else item
    return tuple(merged.values())


def sorted_metadata(metadata: Mapping[str, JSON]) -> dict[str, JSON]:
    """Metadata keys after the known ones, sorted, with nested keys sorted too."""
    return {key: sorted_json(metadata[key]) for key in sorted(metadata)}


def _dropping_empty(values: Mapping[str, JSON]) -> dict[str, JSON]:
    return {key: value for key, value in values.items() if value not in (None, "", [], {})}
