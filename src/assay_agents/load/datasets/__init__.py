"""Other tools' datasets as Assay suites: promptfoo, Inspect AI, pydantic-evals, DeepEval.

:func:`import_dataset` reads the other tool's file in the format that tool writes and
returns the YAML suite it becomes, with every part that could not be mapped, each named by
its path in the file and why. The tool is given, or told from the file where only one tool
writes such a file; when two could have, it is refused rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._documents import parse_json, parse_yaml, read_text
from assay_agents.load._pasted_lines import slug
from assay_agents.load.datasets._common import Draft, Keys, Unmapped
from assay_agents.load.datasets._deepeval import deepeval
from assay_agents.load.datasets._inspect import inspect
from assay_agents.load.datasets._promptfoo import promptfoo
from assay_agents.load.datasets._pydantic_evals import pydantic_evals
from assay_agents.spec import JSON

__all__ = ["SOURCES", "ImportedDataset", "Unmapped", "detect", "import_dataset"]

#: The tools whose datasets can be imported, as ``--from`` names them.
SOURCES = ("promptfoo", "inspect", "pydantic-evals", "deepeval")
_DEEPEVAL_KEYS = frozenset(
    {
        "expected_output",
        "expected_tools",
        "context",
        "retrieval_context",
        "actual_output",
        "tools_called",
        "additional_metadata",
        "comments",
    }
)
_INSPECT_KEYS = frozenset({"target", "choices", "sandbox", "files", "setup"})


@dataclass(frozen=True, slots=True)
class ImportedDataset:
    """The YAML suite another tool's dataset became, and what it does not carry."""

    source: str
    document: dict[str, JSON]
    unmapped: tuple[Unmapped, ...]

    @property
    def scenario_count(self) -> int:
        """How many scenarios the suite holds."""
        groups: Any = self.document.get("groups") or []
        return sum(len(group["scenarios"]) for group in groups)

    def to_yaml(self) -> str:
        """The suite as a YAML document."""
        import yaml

        return yaml.safe_dump(
            self.document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )


def import_dataset(
    path: str | Path, source: str | None = None, *, action_group: str | None = None
) -> ImportedDataset:
    """The suite the dataset at ``path`` makes; ``source`` is one of :data:`SOURCES`.

    Without ``source`` the tool is told from the file, and a file two tools could have
    written is refused. A file with nothing to import, or a required field missing, is a
    :class:`SpecError` naming the file and the field.
    """
    file = Path(path)
    location = str(file)
    if source is not None and source not in SOURCES:
        raise SpecError(f"unknown source {source!r}; one of {', '.join(SOURCES)}", field="--from")
    data = _read(file, location)
    chosen = source or detect(data, file)
    keys = Keys(chosen)
    drafts, unmapped = _converted(chosen, data, location, keys, action_group)
    if not drafts:
        raise SpecError(f"holds nothing to import as a {chosen} dataset", location=location)
    # A part every item shares (promptfoo's defaultTest) is named once.
    once = tuple(dict.fromkeys(unmapped))
    return ImportedDataset(chosen, _document(file, chosen, data, drafts), once)


def _converted(
    source: str, data: Any, location: str, keys: Keys, action_group: str | None
) -> tuple[list[Draft], list[Unmapped]]:
    if source == "promptfoo":
        return promptfoo(_only(data, location, source), location, keys)
    if source == "pydantic-evals":
        return pydantic_evals(_only(data, location, source), location, keys)
    if source == "deepeval":
        return deepeval(_only(data, location, source), location, keys, action_group)
    if isinstance(data, _Lines):
        return inspect(data.samples, location, keys)
    if not isinstance(data, list):
        raise SpecError(
            f"must be a list of samples or JSON lines (got {type(data).__name__})",
            location=location,
        )
    return inspect([(f"[{index}]", item) for index, item in enumerate(data)], location, keys)


def _only(data: Any, location: str, source: str) -> Any:
    if isinstance(data, _Lines):
        raise SpecError(
            f"is JSON lines, which {source} does not write (Inspect samples are JSON lines)",
            location=location,
        )
    return data


@dataclass(frozen=True, slots=True)
class _Lines:
    """A JSON-lines file: each sample with the line it was read at."""

    samples: list[tuple[str, object]]


def _read(file: Path, location: str) -> Any:
    text = read_text(file)
    suffix = file.suffix.lower()
    if suffix == ".jsonl":
        return _Lines(
            [
                (f"line {number}", _line(line, location, number))
                for number, line in enumerate(text.splitlines(), start=1)
                if line.strip()
            ]
        )
    if suffix == ".json":
        return parse_json(text, location)
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text, location)
    raise SpecError(
        f"is a {suffix or 'suffix-less'} file; datasets are read from YAML, JSON or JSON "
        "lines (.yaml, .yml, .json, .jsonl)",
        location=location,
    )


def _line(line: str, location: str, number: int) -> object:
    try:
        return parse_json(line, location)
    except SpecError as error:
        raise SpecError(error.detail, location=location, field=f"line {number}") from None


def detect(data: Any, file: Path) -> str:
    """The tool that writes a file like this; a :class:`SpecError` when none or several could."""
    location = str(file)
    if isinstance(data, _Lines):
        return "inspect"
    found: set[str] = set()
    if isinstance(data, dict):
        if "cases" in data:
            found.add("pydantic-evals")
        if "tests" in data or "prompts" in data:
            found.add("promptfoo")
    elif isinstance(data, list):
        names = {name for item in data if isinstance(item, dict) for name in item}
        if names & _INSPECT_KEYS:
            found.add("inspect")
        if names & _DEEPEVAL_KEYS:
            found.add("deepeval")
        if not found and "input" in names:
            found = {"inspect", "deepeval"}  # both read a bare input
    if len(found) == 1:
        return found.pop()
    said = " or ".join(sorted(found)) if found else "none of " + ", ".join(SOURCES)
    raise SpecError(
        f"cannot tell which tool wrote it (it reads as {said}); give --from {'|'.join(SOURCES)}",
        location=location,
    )


def _document(file: Path, source: str, data: Any, drafts: list[Draft]) -> dict[str, JSON]:
    named = data.get("name") if isinstance(data, dict) else None
    described = data.get("description") if isinstance(data, dict) else None
    suite = slug(named) if isinstance(named, str) and slug(named) else slug(file.stem) or source
    document: dict[str, JSON] = {
        "suite": suite,
        "description": described
        if isinstance(described, str) and described.strip()
        else f"Imported from {source} ({file.name})",
        "groups": [
            {
                "key": slug(source),
                "name": f"{source}: {file.name}",
                "scenarios": [draft.to_json() for draft in drafts],
            }
        ],
    }
    return document
