"""The MCP server's tools called in this process: masking, and the files a tool may read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli import mcp_server
from assay.errors import SpecError


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
    assert "q\"uote-secret" not in str(raised.value) and "***" in str(raised.value)


def test_a_value_shorter_than_the_floor_is_not_masked(monkeypatch):
    # Masking "true" or "1" would destroy every answer that holds the word.
    monkeypatch.setenv("FEATURE_AUTH", "true")
    monkeypatch.setenv("SHORT_KEY", "abcd")
    monkeypatch.setenv("TINY_KEY", "xyz")
    assert mcp_server.masked_value("true abcd xyz") == "true *** xyz"
