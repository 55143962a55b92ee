"""Random documents fed to every loader: each one loads or raises a SpecError, nothing else."""

import contextlib
import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay_agents as assay
from assay_agents.load import Catalog, ScenarioParser, load_items, load_suite

# Names the formats use, so random documents reach deep into the validation.
KEYS = [
    "id",
    "name",
    "input",
    "text",
    "reply",
    "case",
    "option",
    "workflow",
    "expect",
    "answer",
    "contains",
    "not_contains",
    "tools",
    "actions",
    "arguments",
    "group",
    "forbid",
    "commands",
    "events",
    "setup",
    "provenance",
    "judge",
    "tags",
    "params",
    "notes",
    "production_only",
    "api",
    "method",
    "url",
    "response",
    "status",
    "json",
    "suite",
    "groups",
    "key",
    "prompt",
    "scenarios",
    "catalog",
    "products",
    "sets",
    "agent",
    "harness",
    "channels",
    "samples",
    "gate",
    "min_pass_rate",
    "interactions",
    "expect",
    "derived",
    "recorded",
    "language_quality",
    "tone",
    "x",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from(KEYS)
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False)
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=25,
)
mappings = st.dictionaries(st.sampled_from(KEYS), documents, max_size=7)
names = st.sampled_from(["a", "trip.set_name", ""]) | st.text(max_size=5)
lists = st.lists(scalars, max_size=3)

# Items that are nearly right, so most examples get past the first missing field.
items = st.fixed_dictionaries(
    {
        "id": names | scalars,
        "input": st.fixed_dictionaries(
            {},
            optional={
                "text": names | scalars,
                "reply": st.fixed_dictionaries({"case": names, "option": names}) | mappings,
            },
        ),
    },
    optional={
        "name": names,
        "tags": lists,
        "notes": names,
        "production_only": scalars,
        "judge": st.lists(st.sampled_from(["tone", "language_quality", "tnoe"]), max_size=2),
        "expect": st.dictionaries(
            st.sampled_from(
                [
                    "answer",
                    "contains",
                    "not_contains",
                    "tools",
                    "commands",
                    "events",
                    "forbidd",
                    "x",
                ]
            ),
            lists | documents,
            max_size=4,
        )
        | st.fixed_dictionaries(
            {
                "forbid": st.dictionaries(
                    st.sampled_from(["commands", "events", "x"]), lists, max_size=2
                )
            },
            optional={"commands": lists, "actions": st.lists(mappings, max_size=2)},
        ),
        "setup": documents,
        "params": mappings | documents,
        "provenance": st.dictionaries(
            st.sampled_from(["input", "expect", "setup", "api", "x"]),
            st.sampled_from(["authored", "derived", "recorded"]) | scalars,
            max_size=3,
        ),
        "api": st.lists(mappings, max_size=2) | documents,
    },
)
suite_settings = st.fixed_dictionaries(
    {},
    optional={
        "channels": st.lists(st.sampled_from(["commands", "events", "forbid", "x"]), max_size=3),
        "samples": scalars,
        "harness": names,
        "gate": mappings,
        "provenance": mappings,
        "name": names,
        "max_observed": scalars,
    },
)

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def loads_or_refuses(load):
    # Anything but a SpecError escapes and fails the property.
    with contextlib.suppress(assay.SpecError):
        load()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def toml(document):
    """A small TOML writer for random tables (None has no TOML form and is left out)."""
    lines = []
    for key, value in document.items():
        if value is not None:
            lines.append(f"{quoted(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, int) else json.dumps(value)
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value if v is not None) + "]"
    return (
        "{"
        + ", ".join(f"{quoted(k)} = {toml_value(v)}" for k, v in value.items() if v is not None)
        + "}"
    )


def quoted(text):
    # JSON string escapes are TOML's, once astral characters stay literal and DEL is escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


@FAST
@given(item=items | mappings, settings_document=suite_settings | mappings, as_json=st.booleans())
def test_item_directories(item, settings_document, as_json):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write(root, "suite.toml", toml(settings_document))
        if as_json:
            write(root, "item.json", json.dumps(item))
        else:
            write(root, "item.toml", toml(item))
        loads_or_refuses(lambda: load_items(root, agent=lambda text, ctx: "x"))


@FAST
@given(document=documents)
def test_yaml_suites(document):
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), "suite.yml", yaml.safe_dump(document))
        loads_or_refuses(lambda: load_suite(path, agent=lambda text, ctx: "x"))


@FAST
@given(
    document=st.fixed_dictionaries(
        {"suite": st.text(max_size=5)},
        optional={
            "groups": st.lists(
                st.dictionaries(st.sampled_from(KEYS), documents, max_size=4), max_size=3
            )
        },
    )
)
def test_yaml_suites_with_groups(document):
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), "suite.yml", yaml.safe_dump(document))
        loads_or_refuses(lambda: load_suite(path, agent=lambda text, ctx: "x"))


@FAST
@given(document=mappings, products=st.lists(mappings, max_size=3))
def test_catalogs(document, products):
    with tempfile.TemporaryDirectory() as folder:
        body = {"catalog": "c", **document, "products": products}
        path = write(Path(folder), "catalog.yml", yaml.safe_dump(body))

        def load():
            catalog = Catalog.load(path)
            catalog.to_yaml()
            for product in catalog.products:
                for item in product.sets:
                    catalog.suite_for(product.key, item.key, agent=lambda text, ctx: "x")

        loads_or_refuses(load)


@FAST
@given(
    text=st.text(max_size=200)
    | st.lists(
        st.sampled_from(
            [
                "# Orders",
                "Where is it?",
                "`a` notes",
                "x | tools: a, b",
                "y | contains: z",
                "| key: k",
                "z | tool: q",
                "- w",
                "suite: s",
                "groups:",
                "  - key: g",
                "[",
                "{",
                "`",
                "|",
                ":",
            ]
        ),
        max_size=8,
    ).map("\n".join),
    prefix=st.none() | st.text(max_size=4),
    reserved=st.lists(st.text(max_size=6), max_size=3),
)
def test_pasted_text(text, prefix, reserved):
    loads_or_refuses(lambda: ScenarioParser.parse(text, key_prefix=prefix, reserved_keys=reserved))


@FAST
@given(text=st.text(max_size=120))
def test_raw_text_in_every_file_format(text):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name in ("item.toml", "other.json"):
            write(root, name, text)
        loads_or_refuses(lambda: load_items(root))
        loads_or_refuses(lambda: load_suite(write(root, "s.yaml", text)))
        loads_or_refuses(lambda: Catalog.load(write(root, "c.yml", text)))
