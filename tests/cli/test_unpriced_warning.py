"""Tokens recorded with no model to price them by: the run says so once, naming the fixes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from commandline import Cli

SPEC = """
    import assay_agents as assay
    from assay_agents import checks

    def agent(text, ctx):
        metadata = {"model": "gpt-4.1-mini"} if "named" in text else {}
        return assay.Outcome(answer="ok", usage=assay.Usage(1000, 100), metadata=metadata)

    suite = assay.Suite("Tokens", agent=agent, checks=[checks.contains("ok")])
    for number in range(3):
        suite.case(f"{CASE} {number}")
"""

FIX = (
    "run with --model, or have the agent name the model it called in its outcome's "
    'metadata["model"]'
)


def spec(cli: Cli, case: str) -> Path:
    path = cli.cwd / "spec.py"
    path.write_text(textwrap.dedent(SPEC).replace("{CASE}", case), encoding="utf-8")
    return path


def test_tokens_without_a_model_are_named_once_with_the_fix(cli: Cli) -> None:
    ran = cli("run", spec(cli, "anonymous"))
    assert ran.returncode == 0, ran.stderr
    warning = "warning: every sample recorded tokens but no model, so their cost is unknown"
    assert ran.stdout.count(warning) == 1
    assert FIX in " ".join(ran.stdout.split())


@pytest.mark.parametrize(
    ("case", "words"),
    [("anonymous", ["--model", "gpt-4.1-mini"]), ("named", [])],
    ids=["--model", "metadata model"],
)
def test_a_known_model_prices_the_tokens_and_says_nothing(
    cli: Cli, case: str, words: list[str]
) -> None:
    ran = cli("run", spec(cli, case), *words)
    assert ran.returncode == 0, ran.stderr
    assert "no model, so their cost is unknown" not in ran.stdout
