"""Text no database can hold (a NUL, a lone surrogate) is refused where the suite defines it.

PostgreSQL refuses NUL in text, and a lone surrogate is not UTF-8: both are spec errors
(exit 2) naming the field at definition time, the same whichever store is behind the run,
never a traceback and never a run that fails halfway through being created.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app
from assay_agents.errors import SpecError

SUITE_ARGS = {
    "name": ('assay.Suite("bad{bad}name", agent=agent)', "name"),
    "version": ('assay.Suite("s", agent=agent, version="1{bad}")', "version"),
    "agent_name": ('assay.Suite("s", agent=agent, agent_name="a{bad}")', "agent_name"),
    "description": ('assay.Suite("s", agent=agent, description="d{bad}")', "description"),
    "instructions": ('assay.Suite("s", agent=agent, instructions="i{bad}")', "instructions"),
    "tools": (
        'assay.Suite("s", agent=agent, available_tools={{"t{bad}": "x"}})',
        "available_tools",
    ),
}
CASE_ARGS = {
    "case name": ('name="n{bad}"', "name"),
    "input": ('input="i{bad}"', "input"),
    "expected": ('input="hi", expected="e{bad}"', "expected"),
    "group": ('group="g{bad}"', "group"),
    "tags": ('tags=["t{bad}"]', "tags"),
    "notes": ('notes="n{bad}"', "notes"),
    "check text": ('checks=[assay.checks.contains("c{bad}")]', "contains.text"),
    "metadata key": ('metadata={{"k{bad}": 1}}', "metadata"),
    "id": ('id="i{bad}"', "id"),
}
BAD = {"NUL": "\\x00", "lone surrogate": "\\ud800"}


def _spec(tmp_path: Path, suite: str, case: str = 'input="hi"') -> Path:
    path = tmp_path / "spec.py"
    if not case.startswith("input") and "input=" not in case:
        case = f'input="hi", {case}'
    path.write_text(
        "import assay_agents as assay\n\ndef agent(text, ctx):\n    return 'hi'\n\n"
        f"suite = {suite}\nsuite.case({case.replace('input=', '', 1)})\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("where", SUITE_ARGS)
def test_a_suite_setting_no_store_can_hold_exits_2_naming_it(
    tmp_path: Path, where: str, bad: str
) -> None:
    code, field = SUITE_ARGS[where]
    spec = _spec(tmp_path, code.format(bad=BAD[bad]))
    for command in (["validate", str(spec)], ["run", str(spec), "--quiet"]):
        done = CliRunner().invoke(app, command)
        assert done.exit_code == 2, (command, done.output)
        assert field in done.stderr and ("NUL" in done.stderr or "surrogate" in done.stderr)
    assert not (tmp_path / ".assay").exists()


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("where", CASE_ARGS)
def test_a_case_part_no_store_can_hold_exits_2_naming_it(
    tmp_path: Path, where: str, bad: str
) -> None:
    code, field = CASE_ARGS[where]
    spec = _spec(tmp_path, 'assay.Suite("s", agent=agent)', code.format(bad=BAD[bad]))
    done = CliRunner().invoke(app, ["validate", str(spec)])
    assert done.exit_code == 2, done.output
    # An id refuses every control character, NUL among them.
    said = ("NUL", "surrogate", "control characters")
    assert field in done.stderr and any(words in done.stderr for words in said)


def test_the_python_api_refuses_it_when_the_suite_is_defined() -> None:
    with pytest.raises(SpecError) as refused:
        assay.Suite("bad\ud800", agent=lambda text, ctx: text)
    assert refused.value.field == "name"
    str(refused.value).encode("utf-8")  # the message itself can be printed


@pytest.mark.parametrize("bad", BAD)
def test_both_backends_refuse_it_identically_before_a_run_is_created(
    tmp_path: Path, store_url: str, bad: str
) -> None:
    from assay_agents.store import Store

    Store.open(store_url, migrate=True, create=True).close()
    spec = _spec(tmp_path, f'assay.Suite("bad{BAD[bad]}name", agent=agent)')
    done = CliRunner().invoke(app, ["run", str(spec), "--quiet", "--db", store_url])
    assert done.exit_code == 2, done.output
    assert "name: contains a" in done.stderr
    with Store.open(store_url) as store:
        assert store.history() == []
