"""The hostile corpus through every loader and the command line: refused fast, file named."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.load import Catalog, load_items, load_pasted, load_suite
from assay_agents.load._documents import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    parse_json,
    parse_toml,
    parse_yaml,
)
from commandline import Cli

from .hostile_files import (
    ITEM_FILES,
    PASTED_FILES,
    YAML_FILES,
    alias_bomb,
    alias_chain,
    deep_json,
    deep_toml,
    deep_yaml_flow,
)

ASSAY = str(Path(sys.executable).parent / "assay-agents")
# A guard against a hang, not a timing test (bench/hostile_files.py times the corpus): an
# unbounded bomb takes minutes or never ends, and the error says which bound refused it.
FAST_SECONDS = 30.0


def refused(load, path):
    started = time.monotonic()
    with pytest.raises(assay.SpecError) as raised:
        load()
    assert time.monotonic() - started < FAST_SECONDS
    assert raised.value.location == str(path)
    return raised.value


def agent(text, ctx):
    return "x"


@pytest.mark.parametrize(("name", "text"), YAML_FILES, ids=[name for name, _ in YAML_FILES])
def test_yaml_suites_and_catalogs_refuse_the_corpus(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    refused(lambda: load_suite(path, agent=agent), path)
    refused(lambda: Catalog.load(path), path)


@pytest.mark.parametrize(("name", "text"), ITEM_FILES, ids=[name for name, _ in ITEM_FILES])
def test_item_directories_refuse_the_corpus(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    error = refused(lambda: load_items(tmp_path, agent=agent), path)
    assert f"nested more than {MAX_DEPTH} levels" in str(error)


def test_a_deep_suite_toml_is_refused(tmp_path):
    (tmp_path / "a.json").write_text('{"id": "a", "input": {"text": "x"}}')
    settings = tmp_path / "suite.toml"
    settings.write_text("description = 'x'\n[gate]\nx = " + "[" * 500 + "]" * 500 + "\n")
    refused(lambda: load_items(tmp_path, agent=agent), settings)


@pytest.mark.parametrize(("name", "text"), PASTED_FILES, ids=[name for name, _ in PASTED_FILES])
def test_pasted_documents_refuse_the_corpus(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    refused(lambda: load_pasted(path, agent=agent), path)


@pytest.mark.parametrize(
    "text", [alias_bomb(), alias_bomb(levels=30, width=2), alias_bomb(levels=6, width=200)]
)
def test_an_alias_bomb_is_measured_not_expanded(text):
    # "alias bomb" comes only from measuring the aliases before any expansion.
    with pytest.raises(assay.SpecError, match="alias bomb") as raised:
        parse_yaml(text, "bomb.yml")
    assert str(raised.value).startswith("bomb.yml: ")


def test_aliases_within_the_bound_still_load():
    shared = "base: &base {tools: [lookup], contains: [refund]}\n"
    uses = "".join(f"s{index}: *base\n" for index in range(100))
    assert parse_yaml(shared + uses, "ok.yml")["s99"] == {
        "tools": ["lookup"],
        "contains": ["refund"],
    }
    # Just under the bound: one list of 10 items aliased MAX_ALIAS_NODES // 11 times.
    repeated = (
        "a: &a ["
        + ", ".join("x" * 10)
        + "]\nb: ["
        + ", ".join(["*a"] * (MAX_ALIAS_NODES // 11 - 1))
        + "]\n"
    )
    assert len(parse_yaml(repeated, "ok.yml")["b"]) == MAX_ALIAS_NODES // 11 - 1


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        # The item or suite around the nesting is one level (six for the YAML suite).
        (parse_json, deep_json(MAX_DEPTH - 1)),
        (parse_toml, deep_toml(MAX_DEPTH - 1)),
        (parse_yaml, deep_yaml_flow(MAX_DEPTH - 6)),
    ],
)
def test_nesting_up_to_the_bound_loads(parse, text):
    assert parse(text, "ok") is not None


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_json, deep_json(MAX_DEPTH)),
        (parse_toml, deep_toml(MAX_DEPTH)),
        (parse_yaml, deep_yaml_flow(MAX_DEPTH - 5)),
        (parse_yaml, alias_chain(MAX_DEPTH + 1)),
        (parse_json, deep_json(100_000)),
    ],
)
def test_nesting_past_the_bound_is_refused(parse, text):
    with pytest.raises(assay.SpecError, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse(text, "deep")


def cli(cwd, *args):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    return subprocess.run(
        [ASSAY, *map(str, args)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


CLI_CASES = [
    ("bomb.yml", YAML_FILES[0][1]),
    ("merge_bomb.yaml", YAML_FILES[2][1]),
    ("deep_block.yml", YAML_FILES[5][1]),
    ("bomb.txt", PASTED_FILES[0][1]),
]


# A process of its own: a bomb that got through would exhaust it, not the test session.
@pytest.mark.process
@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize(("name", "text"), CLI_CASES, ids=[name for name, _ in CLI_CASES])
def test_the_command_line_exits_2_naming_the_file(tmp_path, command, name, text):
    (tmp_path / name).write_text(text)
    done = cli(tmp_path, command, name)  # cut off (and failed) after 60 s
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{name}: " in done.stderr
    assert not (tmp_path / ".assay").exists()


@pytest.mark.parametrize(("name", "text"), ITEM_FILES[:1] + ITEM_FILES[2:3])
def test_validate_exits_2_naming_a_deep_item_file(tmp_path, name, text):
    folder = tmp_path / "items"
    folder.mkdir()
    (folder / name).write_text(text)
    done = Cli(tmp_path)("validate", "items")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"items/{name}: is nested more than {MAX_DEPTH} levels deep" in done.stderr
