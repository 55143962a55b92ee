"""``assay-agents catalog import|export|diff``: a paste merged into a catalog file, as run."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from commandline import ASSAY

DESK = """\
catalog: support_desk
products:
  - key: triage
    sets:
      - key: smoke
        scenarios:
          - key: refund_request
            prompt: A customer asks for a refund on order 1042.
          - key: orders_1
            prompt: Where is my order?
"""

PASTE = "# Orders\nWhere is my order?\nCancel it | not_contains: I cannot\n"
INTO = ["--into", "desk.yml", "--product", "triage", "--set", "smoke"]


@pytest.fixture
def work(cli):
    (cli.cwd / "desk.yml").write_text(DESK)
    (cli.cwd / "paste.txt").write_text(PASTE)
    return cli.cwd


def test_preview_shows_the_change_and_writes_nothing(cli, work):
    done = cli("catalog", "import", "paste.txt", *INTO, "--preview")
    assert done.exit_code == 0, done.output
    assert "would change" in done.stdout and "added (2): orders_2, orders_3" in done.stdout
    assert "preview: nothing written" in done.stdout
    assert (work / "desk.yml").read_text() == DESK


def test_import_writes_the_canonical_catalog_and_its_digest(cli, work):
    done = cli("catalog", "import", "paste.txt", *INTO)
    assert done.exit_code == 0, done.output
    document = yaml.safe_load((work / "desk.yml").read_text())
    keys = [s["key"] for s in document["products"][0]["sets"][0]["scenarios"]]
    assert keys == ["refund_request", "orders_1", "orders_2", "orders_3"]
    exported = cli("catalog", "export", "desk.yml")
    assert exported.stdout == (work / "desk.yml").read_text()
    digest = done.stdout.split("digest ")[-1].strip()
    assert (
        len(digest) == 64
        and f"same catalog: digest {digest}"
        in cli("catalog", "diff", "desk.yml", "desk.yml").stdout
    )


def test_replace_and_key_prefix(cli, work):
    done = cli("catalog", "import", "paste.txt", *INTO, "--replace", "--key-prefix", "batch2")
    assert done.exit_code == 0, done.output
    assert "removed (2): refund_request, orders_1" in done.stdout
    document = yaml.safe_load((work / "desk.yml").read_text())
    keys = [s["key"] for s in document["products"][0]["sets"][0]["scenarios"]]
    assert keys == ["batch2_orders_1", "batch2_orders_2"]


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["paste.txt", *INTO, "--key-prefix", "--"], "paste.txt: key_prefix: key prefix '--'"),
        (["bad.json", *INTO], "bad.json: [0].tool: unknown field (did you mean 'tools'?)"),
        (["missing.txt", *INTO], "missing.txt"),
        (["paste.txt", "--into", "suite.yml", "--product", "p", "--set", "s"], "suite.yml"),
    ],
)
def test_bad_input_exits_2_naming_the_file_and_field_and_changes_nothing(cli, work, words, message):
    (work / "bad.json").write_text('[{"prompt": "x", "tool": ["a"]}]')
    (work / "suite.yml").write_text("suite: s\ngroups: []\n")
    done = cli("catalog", "import", *words)
    assert done.exit_code == 2, done.output
    assert message in done.stderr
    assert (work / "desk.yml").read_text() == DESK
    assert (work / "suite.yml").read_text() == "suite: s\ngroups: []\n"


def test_export_as_json_and_diff_by_scenario(cli, work):
    exported = cli("catalog", "export", "desk.yml", "--format", "json")
    assert json.loads(exported.stdout)["catalog"] == "support_desk"
    (work / "copy.yml").write_text(DESK.replace("Where is my order?", "Where is it?"))
    done = cli("catalog", "diff", "desk.yml", "copy.yml")
    assert done.exit_code == 1
    assert "changed  scenario triage/smoke/orders_1 (prompt)" in done.stdout
    assert cli("catalog", "export", "desk.yml", "--format", "xml").exit_code == 2


@pytest.mark.process  # standard input reaches only a real process
def test_a_paste_on_standard_input(work):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    done = subprocess.run(
        [ASSAY, "catalog", "import", "-", *INTO],
        cwd=work,
        env=environment,
        input="Send my invoice | key: invoice\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "added (1): invoice" in done.stdout


def test_a_text_file_that_starts_like_a_suite_and_does_not_load_exits_2(cli):
    (cli.cwd / "questions.txt").write_text("description: ours\nsuite: support\ngroups: [\n")
    done = cli("validate", "questions.txt")
    assert done.exit_code == 2 and "questions.txt: invalid YAML" in done.stderr


def test_production_only_scenarios_are_left_out_unless_included(cli, work):
    (work / "prod.json").write_text(
        '[{"prompt": "a"}, {"prompt": "b", "production_only": true, "key": "live"}]'
    )
    left = cli("catalog", "import", "prod.json", *INTO, "--preview")
    assert "added (1): scenario_1" in left.stdout
    assert "left out (production-only; --include-production-only keeps them): live" in left.stdout
    kept = cli("catalog", "import", "prod.json", *INTO, "--include-production-only")
    assert "added (2): scenario_1, live" in kept.stdout
    assert "production_only: true" in (work / "desk.yml").read_text()


@pytest.mark.parametrize("preview", [["--preview"], []])
def test_preview_refuses_what_the_import_refuses_naming_the_paste(cli, work, preview):
    (work / "paste.json").write_text('[{"key": "bad\\u0007key", "prompt": "x"}]')
    done = cli("catalog", "import", "paste.json", *INTO, *preview)
    assert done.exit_code == 2, done.output
    assert "paste.json: [0].key: must not contain control characters" in done.stderr
    assert (work / "desk.yml").read_text() == DESK


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--set", "smoke\nwrote desk.yml", "--set: must not contain control characters"),
        ("--product", "tri\x07age", "--product: must not contain control characters"),
        ("--product", "", "--product: must not be blank"),
        ("--set", "   ", "--set: must not be blank"),
        ("--set", "a/b", "--set: must not contain '/'"),
    ],
)
def test_a_product_or_set_key_is_checked_naming_the_option(cli, work, option, value, message):
    words = {"--product": "triage", "--set": "smoke", option: value}
    done = cli(
        "catalog",
        "import",
        "paste.txt",
        "--into",
        "desk.yml",
        *[part for pair in words.items() for part in pair],
    )
    assert done.exit_code == 2, done.output
    assert message in done.stderr
    assert (work / "desk.yml").read_text() == DESK


def test_a_read_only_catalog_exits_2_naming_it(cli, work):
    os.chmod(work / "desk.yml", 0o444)
    done = cli("catalog", "import", "paste.txt", *INTO)
    assert done.exit_code == 2, done.output
    assert "desk.yml: is read-only" in done.stderr
    assert (work / "desk.yml").read_text() == DESK
