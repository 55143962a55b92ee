"""Pages from templates: links that respect the mount path, every string escaped.

The templates (``templates/*.html.j2``) are written with autoescaping on; every string is
first made visible (control and bidirectional characters as escapes), as the HTML report
does, so an answer holding ``<script>`` or a right-to-left override reads as what it holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from assay_agents.report import format as fmt
from assay_agents.report.view import Figure, Phrase, written
from assay_agents.text import visible

if TYPE_CHECKING:
    from jinja2 import Environment
    from starlette.requests import Request

#: Query values a link keeps: ``None`` and empty ones are left out.
Query = Mapping[str, str | int | None]


def link(request: Request, *segments: str, **query: str | int | None) -> str:
    """The path of a dashboard page under the mount path, each segment quoted whole."""
    root = request.scope.get("root_path", "") or ""
    path = "/".join(quote(segment, safe="") for segment in segments)
    kept = {key: str(value) for key, value in query.items() if value not in (None, "")}
    return f"{root}/{path}" + (f"?{urlencode(kept)}" if kept else "")


def page(request: Request, template: str, **context: Any) -> str:
    """Render ``template`` with ``context``, the request and the link helper."""

    def url(*segments: str, **query: str | int | None) -> str:
        return link(request, *segments, **query)

    return _environment().get_template(template).render(request=request, url=url, **context)


def _finalize(value: Any) -> Any:
    if type(value) is str:
        return value if value.isprintable() else visible(value, lines=True)
    if isinstance(value, Figure | Phrase):
        return visible(written(value), lines=True)
    return value


def pretty(value: object) -> str:
    """JSON of a stored value, indented, for a ``<pre>`` block."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _percent(value: float | None) -> str:
    return fmt.MISSING if value is None else fmt.percent(value)


def _score(value: float | None) -> str:
    return fmt.score(value)


def _money(value: float | None) -> str:
    return fmt.money(value)


def _when(value: object) -> str:
    from datetime import datetime

    if not isinstance(value, datetime):
        return fmt.MISSING
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


@cache
def _environment() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("assay_agents.dashboard", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(
        percent=_percent,
        score=_score,
        money=_money,
        when=_when,
        pretty=pretty,
        cell=lambda value: written(value) if isinstance(value, Figure | Phrase) else value,
        thousands=fmt.tokens,
    )
    environment.globals.update(missing=fmt.MISSING)
    return environment
