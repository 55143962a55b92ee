"""``assay-agents init``: a starter suite, the project configuration and a ``.gitignore`` entry."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

STARTER_SUITE = '''"""A starter suite: replace the agent with yours, and the cases with your tasks.

Run it with `assay-agents run assay_suite.py`; every run is kept in .assay/ for comparison.
"""

import assay_agents as assay
from assay_agents import checks


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

CONFIGURATION = """# Project defaults for Assay; a flag or an ASSAY_* variable overrides them.
database = "sqlite:///.assay/assay.db"   # relative to this file; or postgresql://...
concurrency = 8
# judge = "openai/gpt-4.1-mini"
# gate = { min_pass_rate = 0.9 }
"""


def init_command(
    folder: Annotated[Path, typer.Argument(help="The project folder.")] = Path("."),
) -> None:
    """Start a project: a starter suite, the configuration and .gitignore's .assay/ entry.

    Nothing that exists is overwritten: a file already there is kept and said so. A symbolic
    link, or anything but a regular file, under one of those names is refused before
    anything is written: it would lead the write outside the folder.
    """
    from assay_agents.cli._common import fail

    if not folder.is_dir():
        fail(f"{folder} is not a folder")
    for name in ("assay_suite.py", "pyproject.toml", "assay.toml", ".gitignore"):
        problem = _not_a_plain_file(folder / name)
        if problem is not None:
            fail(f"{folder / name}: {problem}; nothing was written")
    for line in (
        _write(folder / "assay_suite.py", STARTER_SUITE),
        _configure(folder),
        _ignore(folder / ".gitignore"),
    ):
        print(line)
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    print(f"next: {where}assay-agents run assay_suite.py")


def _not_a_plain_file(path: Path) -> str | None:
    """Why ``path`` may not be written (a link, a folder, a FIFO...); ``None`` when it may."""
    import stat

    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return "is a symbolic link, which assay-agents init does not follow"
    return None if stat.S_ISREG(mode) else "is not a regular file"


def _write(path: Path, text: str) -> str:
    try:
        # Created here and now, never through a link planted since the check above.
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
    except FileExistsError:
        return f"kept {path} (it exists)"
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    return f"wrote {path}"


def _rewrite(path: Path, text: str) -> None:
    """Replace the text of an existing regular file, refusing to follow a link."""
    handle = os.open(path, os.O_WRONLY | os.O_TRUNC | _NOFOLLOW)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)


#: Where the platform has it, opening a path that is a symbolic link fails.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _configure(folder: Path) -> str:
    project = folder / "pyproject.toml"
    if project.is_file():
        text = project.read_text(encoding="utf-8")
        if "[tool.assay]" in text:
            return f"kept {project} (it has a [tool.assay] table)"
        separator = "" if text.endswith("\n") or not text else "\n"
        _rewrite(project, f"{text}{separator}\n[tool.assay]\n{CONFIGURATION}")
        return f"added [tool.assay] to {project}"
    return _write(folder / "assay.toml", CONFIGURATION)


def _ignore(path: Path) -> str:
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if any(line.strip() in (".assay", ".assay/", "/.assay/") for line in text.splitlines()):
        return f"kept {path} (it ignores .assay/)"
    separator = "" if text.endswith("\n") or not text else "\n"
    if path.is_file():
        _rewrite(path, f"{text}{separator}.assay/\n")
    else:
        _write(path, ".assay/\n")
    return f"added .assay/ to {path}"
