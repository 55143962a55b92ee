import json
import tomllib

import jsonschema
import pytest
import yaml

import assay_agents as assay
from assay_agents.load import FORMATS, schema

from .test_catalog import CATALOG
from .test_suites import BASE


def validator(name):
    document = schema(name)
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def test_every_format_has_a_valid_schema():
    for name in FORMATS:
        assert validator(name).schema["title"].startswith("Assay")


def test_the_example_items_and_settings_validate(trip_items):
    items = validator("item")
    for path in sorted(trip_items.iterdir()):
        if path.name == "suite.toml":
            validator("suite-toml").validate(tomllib.loads(path.read_text()))
        elif path.suffix == ".toml":
            items.validate(tomllib.loads(path.read_text()))
        elif path.suffix == ".json":
            items.validate(json.loads(path.read_text()))


def test_suites_and_catalogs_validate_and_typos_do_not():
    validator("suite").validate(yaml.safe_load(BASE))
    validator("catalog").validate(yaml.safe_load(CATALOG))
    item = {"id": "a", "input": {"text": "x"}, "expect": {"commands": [], "forbidd": {}}}
    errors = list(validator("item").iter_errors(item))
    assert errors  # forbidd is not an array, so it is not a channel either
    assert list(
        validator("item").iter_errors({"id": "a", "input": {"text": "x"}, "judge": ["tnoe"]})
    )


def test_an_unknown_format_names_the_near_one():
    with pytest.raises(
        assay.SpecError,
        match=r"unknown format 'catalogue' \(did you mean "
        r"'catalog'\?\)",
    ):
        schema("catalogue")
