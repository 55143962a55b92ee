"""Every loader against its JSON Schema: generated documents load, mutated ones are refused.

The oracle is the schema ``assay-agents schema`` prints. A document generated from it (plus the
rules it cannot express, given as overrides) must load; the same document with one field of
the wrong type, one unknown key or one required key removed must raise a SpecError naming
that field, and nothing else.
"""

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay_agents as assay
from assay_agents.load import Catalog, load_items, load_suite, schema

from .schema_documents import OMIT, WORDS, WRONG, allowed_types, documents, spots, value_type
from .test_properties import toml

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHANNELS = ["commands", "events"]
SETTINGS = 'channels = ["commands", "events"]\n'
# Never one of the expected tools (WORDS are at most 8 characters): a tool both expected and
# forbidden is refused, a rule the schema cannot express.
FORBIDDEN_TOOLS = st.none() | st.lists(
    st.sampled_from(["issue_refund", "delete_account"]), min_size=1, max_size=2
)
ITEM = 'id = "fixed"\n[input]\ntext = "hello"\n'


def unique_keys(items):
    """Keys made unique in their list, as the loaders require."""
    return [{**item, "key": f"{item['key']}{index}"} for index, item in enumerate(items)]


# Patterns that compile: a pattern that does not is refused when the suite loads.
PATTERNS = st.none() | st.lists(WORDS, max_size=2)
OVERRIDES = {
    "item": {
        "input": st.one_of(st.fixed_dictionaries({"text": WORDS})),
        "expect.forbid": st.none()
        | st.dictionaries(
            st.sampled_from(CHANNELS), st.lists(WORDS, min_size=1, max_size=2), max_size=2
        ),
        "provenance": st.none()
        | st.fixed_dictionaries(
            {}, optional={"input": st.sampled_from(["authored", "derived", "recorded"])}
        ),
        "api": OMIT,
        "judge": st.lists(st.sampled_from(["tone", "language_quality"]), max_size=2, unique=True),
        # A declared channel, and never beside declared effects: one or the other.
        "committed_effects_channel": st.none() | st.sampled_from(CHANNELS),
        "committed_effects": OMIT,
    },
    "suite-toml": {
        # A suite runs an agent or a harness; max_observed is a harness's ceiling.
        "harness": OMIT,
        "max_observed": OMIT,
        "channels": st.lists(st.sampled_from([*CHANNELS, "acts"]), unique=True, max_size=3),
        "criteria": st.none()
        | st.lists(st.sampled_from(["tone", "task_completion"]), unique=True, max_size=2),
        # Not params: the format names it, but a case has no provenance for it (yet).
        "provenance": st.none()
        | st.dictionaries(
            st.sampled_from(["input", "expect", "setup", "api"]),
            st.sampled_from(["authored", "derived", "recorded"]),
            max_size=3,
        ),
    },
    "suite": {
        "groups[].scenarios[].api": OMIT,
        "groups[].scenarios[].expect.forbid_tools": FORBIDDEN_TOOLS,
        # equals is the reference checked exactly: beside answer it is refused.
        "groups[].scenarios[].expect.equals": OMIT,
        "groups[].scenarios[].expect.regex": PATTERNS,
    },
    "catalog": {
        "products[].sets[].scenarios[].api": OMIT,
        "products[].sets[].scenarios[].expect.forbid_tools": FORBIDDEN_TOOLS,
        "products[].sets[].scenarios[].expect.equals": OMIT,
        "products[].sets[].scenarios[].expect.regex": PATTERNS,
        "products[].sets[].scenarios[].tags": st.none() | st.lists(WORDS, max_size=2),
        "products[].sets[].criteria": st.none()
        | st.lists(st.sampled_from(["tone", "answer_relevancy"]), unique=True, max_size=2),
    },
}
SCHEMAS = {name: schema(name) for name in OVERRIDES}


def catalogs():
    """Catalog documents: products and sets keyed uniquely, none of them empty."""
    base = documents(SCHEMAS["catalog"], OVERRIDES["catalog"])

    def fill(document):
        products = unique_keys(document.get("products") or [{"key": "p", "sets": []}])
        for product in products:
            sets = unique_keys(product.get("sets") or [{"key": "s"}])
            product["sets"] = [
                {
                    **chosen,
                    "scenarios": unique_keys(
                        chosen.get("scenarios") or [{"key": "k", "prompt": "hello"}]
                    ),
                }
                for chosen in sets
            ]
        return {**document, "products": products}

    return base.map(fill)


def suites():
    """YAML suite documents: group keys unique, scenario keys unique across the suite."""

    def fill(document):
        groups = unique_keys(document.get("groups") or [])
        for number, group in enumerate(groups):
            group["scenarios"] = [
                {**item, "key": f"{item['key']}{index}_{number}"}
                for index, item in enumerate(group.get("scenarios") or [])
            ]
        return {**document, "groups": groups}

    return documents(SCHEMAS["suite"], OVERRIDES["suite"]).map(fill)


def generated(name):
    if name == "catalog":
        return catalogs()
    if name == "suite":
        return suites()
    return documents(SCHEMAS[name], OVERRIDES[name])


def load(name, document, *, as_json=False):
    """Write ``document`` in its format and load it the way `assay-agents validate` does."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        if name in ("item", "suite-toml"):
            settings_text = toml(document) if name == "suite-toml" else SETTINGS
            (root / "suite.toml").write_text(settings_text)
            if name == "suite-toml":
                (root / "item.toml").write_text(ITEM)
            elif as_json:
                (root / "item.json").write_text(json.dumps(document))
            else:
                (root / "item.toml").write_text(toml(document))
            return load_items(root, imports=False)
        path = root / "document.yml"
        path.write_text(yaml.safe_dump(document))
        if name == "suite":
            return load_suite(path, imports=False)
        catalog = Catalog.load(path)
        for product in catalog.products:
            for chosen in product.sets:
                catalog.suite_for(product.key, chosen.key, imports=False)
        return catalog


@pytest.mark.parametrize("name", list(OVERRIDES))
def test_documents_generated_from_the_schema_load(name):
    @FAST
    @given(document=generated(name), as_json=st.booleans())
    def check(document, as_json):
        load(name, document, as_json=as_json)

    check()


def mutations(name):
    """(a valid document with one mutation, the field the error must name)."""

    @st.composite
    def mutate(draw):
        document = draw(generated(name))
        candidates = [spot for spot in spots(SCHEMAS[name], document) if spot.path]
        objects = [
            spot
            for spot in spots(SCHEMAS[name], document)
            if isinstance(spot.value, dict) and "properties" in spot.schema
        ]
        kind = draw(st.sampled_from(["type", "unknown", "missing"]))
        if kind == "type" and candidates:
            spot = draw(st.sampled_from(candidates))
            wrong = [
                value
                for kind_, value in WRONG.items()
                if kind_ not in allowed_types(SCHEMAS[name], spot.whole) and value is not None
            ]
            if wrong:
                return replaced(document, spot.path, draw(st.sampled_from(wrong))), spot.field
        spot = draw(st.sampled_from(objects))
        required = [key for key in spot.schema.get("required", ()) if key in spot.value]
        if kind == "missing" and required:
            key = draw(st.sampled_from(required))
            return removed(document, spot.path, key), joined(spot.field, key)
        key = misspelt(draw, spot.schema)
        return added(document, spot.path, key), joined(spot.field, key)

    return mutate()


def misspelt(draw, node):
    """A key one edit from a defined one: unknown everywhere, and refused even in catalogs."""
    known = sorted(node["properties"])
    name = draw(st.sampled_from(known))
    for candidate in (name + "s", name[:-1] + "x" + name[-1], "x" + name):
        if candidate not in known:
            return candidate
    raise AssertionError(name)


def joined(field, key):
    return f"{field}.{key}" if field else key


def replaced(document, path, value):
    copy = json.loads(json.dumps(document))
    parent = copy
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return copy


def removed(document, path, key):
    copy = json.loads(json.dumps(document))
    target = copy
    for part in path:
        target = target[part]
    del target[key]
    return copy


def added(document, path, key):
    copy = json.loads(json.dumps(document))
    target = copy
    for part in path:
        target = target[part]
    target[key] = ["x"]
    return copy


@pytest.mark.parametrize("name", list(OVERRIDES))
def test_mutated_documents_are_refused_naming_the_field(name):
    @FAST
    @given(mutation=mutations(name), as_json=st.booleans())
    def check(mutation, as_json):
        document, field = mutation
        with pytest.raises(assay.SpecError) as raised:
            load(name, document, as_json=as_json)
        named = raised.value.field or ""
        assert named == field or named.startswith((field + ".", field + "[")), (
            f"{field!r} mutated, but the error names {named!r}: {raised.value}"
        )

    check()


def test_value_types_are_json_types():
    assert [value_type(value) for value in WRONG.values()] == list(WRONG)
