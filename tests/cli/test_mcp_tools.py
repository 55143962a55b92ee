"""The MCP server's tools called in this process: masking, and the files a tool may read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_agents.cli import mcp_server
from assay_agents.errors import SpecError


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.parametrize("secret", ['pa"ss\\word1', "line\nbreak-secret", "plain-secret"])
def test_a_secret_is_masked_whatever_json_would_escape_in_it(monkeypatch, secret):
    monkeypatch.setenv("SERVICE_TOKEN", secret)
    result = {"answer": f"it said {secret}", "list": [secret, 3], secret: True}
    cleaned = mcp_server.masked_value(result)
    assert secret not in json.dumps(cleaned) and secret not in json.dumps(cleaned).encode(
        "utf-8"
    ).decode("unicode_escape")
    assert cleaned == {"answer": "it said ***", "list": ["***", 3], "***": True}


def test_a_secret_in_an_error_is_masked(monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", 'q"uote-secret')
    from mcp.server.mcpserver.exceptions import ToolError

    def failing() -> None:
        raise SpecError('refused q"uote-secret here')

    with pytest.raises(ToolError) as raised:
        mcp_server._guarded(failing)()
    assert 'q"uote-secret' not in str(raised.value) and "***" in str(raised.value)


def test_a_value_shorter_than_the_floor_is_not_masked(monkeypatch):
    # Masking "true" or "1" would destroy every answer that holds the word.
    monkeypatch.setenv("FEATURE_AUTH", "true")
    monkeypatch.setenv("SHORT_KEY", "abcd")
    monkeypatch.setenv("TINY_KEY", "xyz")
    assert mcp_server.masked_value("true abcd xyz") == "true *** xyz"


API_SUITE = """\
suite: s
groups:
  - key: g
    scenarios:
      - key: k
        prompt: hi
        api:
          - method: GET
            url: http://x/y
            response: {{status: 200, body_file: {body}}}
"""


@pytest.mark.parametrize("body", ["../outside/v.json", "{outside}/v.json", "link/v.json"])
def test_validate_reads_no_file_a_suite_names_outside_the_working_directory(here, body):
    outside = here.parent / "outside"
    outside.mkdir()
    (outside / "v.json").write_text('{"secret": 1}')
    (here / "link").symlink_to(outside)
    (here / "suite.yml").write_text(API_SUITE.format(body=body.format(outside=outside)))
    with pytest.raises(SpecError) as raised:
        mcp_server.validate("suite.yml")
    assert "body_file" in str(raised.value)
    assert "outside the working directory" in str(raised.value)


def test_validate_refuses_alike_whether_the_outside_file_exists_or_not(here):
    (here / "a.yml").write_text(API_SUITE.format(body="/etc/hostname"))
    (here / "b.yml").write_text(API_SUITE.format(body="/etc/no-such-file"))
    texts = []
    for name in ("a.yml", "b.yml"):
        with pytest.raises(SpecError) as raised:
            mcp_server.validate(name)
        texts.append(str(raised.value).replace("hostname", "X").replace("no-such-file", "X"))
    assert texts[0] == texts[1].replace("b.yml", "a.yml")


def test_validate_reads_a_body_file_inside(here):
    (here / "v.json").write_text('{"ok": 1}')
    (here / "suite.yml").write_text(API_SUITE.format(body="v.json"))
    assert mcp_server.validate("suite.yml")["cases"] == [{"id": "k", "group": "g"}]


def test_merging_into_a_catalog_reads_no_file_outside(here):
    (here.parent / "v.json").write_text("{}")
    catalog = (
        "catalog: c\nproducts:\n  - key: p\n    sets:\n      - key: s\n        scenarios:\n"
        "          - key: k\n            prompt: hi\n            api:\n"
        "              - {method: GET, url: 'http://x/y',\n"
        "                 response: {status: 200, body_file: ../v.json}}\n"
    )
    (here / "c.yml").write_text(catalog)
    with pytest.raises(SpecError, match="outside the working directory"):
        mcp_server.scenarios_merge("c.yml", "p", "s", "new one", apply=True)
    assert (here / "c.yml").read_text() == catalog


def test_a_merge_preview_refuses_what_applying_would_refuse(here):
    with pytest.raises(SpecError, match=r"<text>: \[0\]\.key: must not contain control"):
        mcp_server.scenarios_merge("c.yml", "p", "s", '[{"key": "a\\u0007", "prompt": "x"}]')
    assert not (here / "c.yml").exists()
