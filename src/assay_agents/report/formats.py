"""The report formats by name and file extension, built in or installed by another package.

A format is a name, its aliases, the extensions that select it, a renderer from a
:class:`~assay_agents.report.view.ReportView` to text and, optionally, a renderer of a comparison on
its own (what ``assay-agents compare --format NAME`` prints). Text, Markdown, JSON and HTML are
built in.

Another package adds a format through the ``assay.report_formats`` entry point group; the
entry point's name is the format's name, and it points at a :class:`ReportFormat` or at a
function from a view to text::

    [project.entry-points."assay.report_formats"]
    asciidoc = "assay_asciidoc:render"

An installed format is imported only when asked for by name. One that cannot be imported, or
whose renderer fails, raises :class:`~assay_agents.errors.ConfigurationError` naming it and the
package it came from (``assay-agents report`` and ``assay-agents compare`` exit 2). Its output is
shown with control and bidirectional characters escaped, as the built-in formats' is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TypeVar

from assay_agents.errors import ConfigurationError
from assay_agents.report.html import html_of
from assay_agents.report.jsonreport import render_json
from assay_agents.report.junit import junit_of
from assay_agents.report.markdown import comparison_markdown, markdown_of
from assay_agents.report.prose import comparison_json
from assay_agents.report.text import comparison_text, text_of
from assay_agents.report.view import ComparisonSection, ReportView
from assay_agents.text import visible

#: The entry point group third-party report formats register under.
ENTRY_POINT_GROUP = "assay.report_formats"

#: Renders a whole report.
Renderer = Callable[[ReportView], str]
#: Renders a comparison of two runs on its own.
ComparisonRenderer = Callable[[ComparisonSection], str]

Shown = TypeVar("Shown", ReportView, ComparisonSection)


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """One output format: how it is named, which file extensions select it, how it renders.

    ``render_comparison`` is ``None`` for a format that has nothing to say about a
    comparison on its own; ``origin`` names the package an installed format came from.
    """

    name: str
    render: Renderer
    extensions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    render_comparison: ComparisonRenderer | None = None
    origin: str | None = None

    def answers_to(self, name: str) -> bool:
        """Whether ``name`` (case-insensitive) is this format's name or one of its aliases."""
        return name.lower() in (self.name, *self.aliases)

    def report(self, view: ReportView) -> str:
        """Render ``view``; an installed format's failure is a configuration error naming it."""
        return self._guarded(self.render, view)

    def comparison(self, section: ComparisonSection) -> str:
        """Render a comparison on its own; a format without a comparison renderer refuses."""
        if self.render_comparison is None:
            raise ConfigurationError(
                f"report format {self.name!r}{self._from()} cannot render a comparison on its "
                "own; use text, markdown or json"
            )
        return self._guarded(self.render_comparison, section)

    def _guarded(self, renderer: Callable[[Shown], str], value: Shown) -> str:
        if self.origin is None:
            return renderer(value)
        try:
            rendered = renderer(value)
        except Exception as error:  # any failure of someone else's code is theirs to name
            raise ConfigurationError(
                f"report format {self.name!r}{self._from()} failed: {type(error).__name__}: {error}"
            ) from error
        if not isinstance(rendered, str):
            raise ConfigurationError(
                f"report format {self.name!r}{self._from()} returned "
                f"{type(rendered).__name__}, not text"
            )
        # The view holds what users, agents and endpoints wrote, as they wrote it: whatever
        # another package did with it, no control character reaches a terminal or a file.
        return visible(rendered, lines=True)

    def _from(self) -> str:
        return "" if self.origin is None else f" (from {self.origin})"


def _json_report(view: ReportView) -> str:
    return render_json(view.run, view.comparison, view.model_comparison, view.fix_items)


def _json_comparison(section: ComparisonSection) -> str:
    import json

    from assay_agents.text import json_visible

    assert section.comparison is not None
    data = comparison_json(section.comparison)
    return json_visible(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


BUILTIN_FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("text", text_of, (".txt", ".text"), ("txt",), comparison_text),
    ReportFormat("markdown", markdown_of, (".md", ".markdown"), ("md",), comparison_markdown),
    ReportFormat("json", _json_report, (".json",), (), _json_comparison),
    ReportFormat("junit", junit_of, (".xml",)),
    ReportFormat("html", html_of, (".html", ".htm"), ("htm",)),
)

#: The canonical names of the built-in formats.
FORMATS: tuple[str, ...] = tuple(f.name for f in BUILTIN_FORMATS)


def installed() -> tuple[EntryPoint, ...]:
    """The formats other packages registered, not yet imported, builtin names excepted."""
    builtin = {name for f in BUILTIN_FORMATS for name in (f.name, *f.aliases)}
    found = entry_points(group=ENTRY_POINT_GROUP)
    return tuple(point for point in found if point.name.lower() not in builtin)


def format_names() -> tuple[str, ...]:
    """Every format a report can be written in: the built-in ones, then the installed."""
    return (*FORMATS, *(point.name for point in installed()))


def _accepted_names() -> str:
    builtin = [f.name + "".join(f" ({a})" for a in f.aliases) for f in BUILTIN_FORMATS]
    return ", ".join([*builtin, *(point.name for point in installed())])


def _accepted_extensions() -> str:
    return ", ".join(ext for f in BUILTIN_FORMATS for ext in f.extensions)


def format_named(name: str) -> ReportFormat:
    """Find the format called ``name`` or an alias of it, importing an installed one now."""
    found = next((f for f in BUILTIN_FORMATS if f.answers_to(name)), None)
    if found is not None:
        return found
    point = next((p for p in installed() if p.name.lower() == name.lower()), None)
    if point is None:
        raise ConfigurationError(
            f"unknown report format {name!r}; accepted formats: {_accepted_names()}"
        )
    return _load(point)


def _load(point: EntryPoint) -> ReportFormat:
    origin = _origin(point)
    try:
        loaded = point.load()
    except Exception as error:  # an import error, or anything its module raised on import
        raise ConfigurationError(
            f"report format {point.name!r} (from {origin}) could not be loaded: "
            f"{type(error).__name__}: {error}"
        ) from error
    if isinstance(loaded, ReportFormat):
        return replace(loaded, origin=origin)
    if callable(loaded):
        return ReportFormat(point.name.lower(), loaded, origin=origin)
    raise ConfigurationError(
        f"report format {point.name!r} (from {origin}) is a {type(loaded).__name__}, "
        "neither a ReportFormat nor a function from a report view to text"
    )


def _origin(point: EntryPoint) -> str:
    dist = point.dist
    where = point.value
    return where if dist is None else f"{dist.name} {dist.version}, {where}"


def format_for(
    path: Path, name: str | None = None, *, named_by: str | None = "format="
) -> ReportFormat:
    """Find the format ``name`` when given, else the one ``path``'s extension selects.

    ``named_by`` is how the caller's user names a format (``--format`` on a command line,
    ``format=`` in Python, ``None`` where only the extension can), for the error to say.
    Only the built-in formats are chosen by extension; an installed one is named.
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
