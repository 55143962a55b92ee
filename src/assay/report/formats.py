"""The report formats by name and file extension: the seam later formats plug into.

A format is a name, its aliases, the extensions that select it and a renderer from a run and
its comparisons to text. HTML (and JUnit) join by adding a :class:`ReportFormat` to
:data:`BUILTIN_FORMATS`; nothing else in the report package changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.compare import Comparison, ModelComparison
from assay.errors import ConfigurationError
from assay.report.jsonreport import render_json
from assay.report.markdown import render_markdown
from assay.report.text import render_text
from assay.results import Run
from assay.results.fixes import FixItem

#: Renders a run, its comparison with a baseline and its model comparison (either may be None),
#: and the fix items to show (None: the run's own).
Renderer = Callable[[Run, Comparison | None, ModelComparison | None, Sequence[FixItem] | None], str]


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """One output format: how it is named, which file extensions select it, how it renders."""

    name: str
    render: Renderer
    extensions: tuple[str, ...]
    aliases: tuple[str, ...] = ()

    def answers_to(self, name: str) -> bool:
        """Whether ``name`` (case-insensitive) is this format's name or one of its aliases."""
        return name.lower() in (self.name, *self.aliases)


BUILTIN_FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("text", render_text, (".txt", ".text"), ("txt",)),
    ReportFormat("markdown", render_markdown, (".md", ".markdown"), ("md",)),
    ReportFormat("json", render_json, (".json",)),
)

#: The canonical names of the formats a report can be written in.
FORMATS: tuple[str, ...] = tuple(f.name for f in BUILTIN_FORMATS)


def _accepted_names() -> str:
    return ", ".join(f.name + "".join(f" ({a})" for a in f.aliases) for f in BUILTIN_FORMATS)


def _accepted_extensions() -> str:
    return ", ".join(ext for f in BUILTIN_FORMATS for ext in f.extensions)


def format_named(name: str) -> ReportFormat:
    """Find the format called ``name`` or an alias of it; else raise naming them all."""
    found = next((f for f in BUILTIN_FORMATS if f.answers_to(name)), None)
    if found is None:
        raise ConfigurationError(
            f"unknown report format {name!r}; accepted formats: {_accepted_names()}"
        )
    return found


def format_for(
    path: Path, name: str | None = None, *, named_by: str | None = "format="
) -> ReportFormat:
    """Find the format ``name`` when given, else the one ``path``'s extension selects.

    ``named_by`` is how the caller's user names a format (``--format`` on a command line,
    ``format=`` in Python, ``None`` where only the extension can), for the error to say.
    """
    if name is not None:
        try:
            return format_named(name)
        except ConfigurationError as error:
            raise ConfigurationError(f"cannot write report {str(path)!r}: {error}") from None
    extension = path.suffix.lower()
    described = repr(extension) if extension else "(none)"
    found = next((f for f in BUILTIN_FORMATS if extension in f.extensions), None)
    if found is None:
        raise ConfigurationError(
            f"cannot tell the report format of {str(path)!r} from its extension "
            f"{described}; use one of {_accepted_extensions()}"
            + ("" if named_by is None else f", or give {named_by} one of {_accepted_names()}")
        )
    return found
