"""``assay init``: a starter suite, the project configuration and a ``.gitignore`` entry."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

STARTER_SUITE = '''"""A starter suite: replace the agent with yours, and the cases with your tasks.

Run it with `assay run assay_suite.py`; every run is kept in .assay/ for comparison.
"""

import assay
from assay import checks


def agent(question: str, ctx: assay.AgentContext) -> assay.Outcome:
    """Your agent: answer the question, and report the tools it called, in order."""
    if "return" in question.lower():
        return assay.Outcome(
            answer="You can return an item within 30 days.",
            actions=[assay.Action("lookup_policy", {"topic": "returns"}, group="policies")],
        )
    return assay.Outcome(answer="I can help with orders and returns.", actions=[])


suite = assay.Suite("Starter", agent=agent)
suite.case(
    "How long do I have to return an item?",
    expected="You can return an item within 30 days.",
    checks=[checks.contains("30 days")],
    # The tool calls that must happen, in order (the `actions` check).
    expected_actions=[{"group": "policies", "name": "lookup_policy",
                       "arguments": {"topic": "returns"}}],
)
suite.case("What can you help me with?", checks=[checks.contains("orders"),
                                                 checks.not_contains("sorry")])
'''

CONFIGURATION = '''# Project defaults for `assay`; a flag or an ASSAY_* variable overrides them.
database = "sqlite:///.assay/assay.db"   # relative to this file; or postgresql://...
concurrency = 8
# judge = "openai/gpt-4.1-mini"
# gate = { min_pass_rate = 0.9 }
'''


def init_command(
    folder: Annotated[Path, typer.Argument(help="The project folder.")] = Path("."),
) -> None:
    """Start a project: a starter suite, the configuration and .gitignore's .assay/ entry.

    Nothing that exists is overwritten: a file already there is kept and said so.
    """
    from assay.cli._common import fail

    if not folder.is_dir():
        fail(f"{folder} is not a folder")
    for line in (_write(folder / "assay_suite.py", STARTER_SUITE), _configure(folder),
                 _ignore(folder / ".gitignore")):
        print(line)
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    print(f"next: {where}assay run assay_suite.py")


def _write(path: Path, text: str) -> str:
    if path.exists():
        return f"kept {path} (it exists)"
    path.write_text(text, encoding="utf-8")
    return f"wrote {path}"


def _configure(folder: Path) -> str:
    project = folder / "pyproject.toml"
    if project.is_file():
        text = project.read_text(encoding="utf-8")
        if "[tool.assay]" in text:
            return f"kept {project} (it has a [tool.assay] table)"
        separator = "" if text.endswith("\n") or not text else "\n"
        project.write_text(f"{text}{separator}\n[tool.assay]\n{CONFIGURATION}",
                           encoding="utf-8")
        return f"added [tool.assay] to {project}"
    return _write(folder / "assay.toml", CONFIGURATION)


def _ignore(path: Path) -> str:
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if any(line.strip() in (".assay", ".assay/", "/.assay/") for line in text.splitlines()):
        return f"kept {path} (it ignores .assay/)"
    separator = "" if text.endswith("\n") or not text else "\n"
    path.write_text(f"{text}{separator}.assay/\n", encoding="utf-8")
    return f"added .assay/ to {path}"
