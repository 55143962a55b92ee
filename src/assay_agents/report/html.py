"""The HTML report: one self-contained page to archive beside a CI run or hand to a teammate.

The page is laid out from the :class:`~assay_agents.report.view.ReportView` by a Jinja2 template
(``templates/report.html.j2``) with autoescaping on, in the reading order every report shares:
stat tiles, a panel per model with the verdict, the case × model matrix, the comparison with
the baseline, the model intervals, one closed disclosure per case, and the what-to-fix cards.

A page of many samples stays quick to open: a closed case is laid out only as it nears the
screen (``content-visibility``), a case writes its metrics in one table (one header row, a row
group per sample), and a matrix of more than :data:`OPEN_MATRIX_ROWS` cases waits in a closed
disclosure. Printing opens and lays out everything.

Everything it shows is inline (styles, the interval chart as SVG, one script behind the *Copy
as Markdown* buttons, allowed by its hash in the page's Content Security Policy); nothing is
loaded from anywhere. Every string reaches the page through the template's autoescaping, after
:func:`assay_agents.text.visible` has written its control and bidirectional characters as escapes,
so an answer holding ``<script>`` or a right-to-left override reads as the characters it holds.

``theme`` is ``light``, ``dark`` or ``system`` (the reader's preference, the default).
Jinja2 is imported on first render: ``import assay_agents`` does not load it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from assay_agents.compare import Comparison, ModelComparison, ModelInterval, WithheldHeadline
from assay_agents.errors import ConfigurationError
from assay_agents.record import write
from assay_agents.replay.evidence import EVIDENCE_KEY
from assay_agents.report import _comparing as comparing
from assay_agents.report import _fixing as fixing
from assay_agents.report import _reading as reading
from assay_agents.report import format as fmt
from assay_agents.report._collecting import collector_paused
from assay_agents.report._markdown_fixes import fix_item_markdown
from assay_agents.report.view import (
    CasesSection,
    CaseView,
    Cell,
    ComparisonSection,
    Figure,
    FixesSection,
    MatrixSection,
    ModelsSection,
    Phrase,
    ReportView,
    SampleView,
    SummarySection,
    VerdictSection,
    view_of,
    written,
)
from assay_agents.results import Run
from assay_agents.results.fixes import FixItem
from assay_agents.text import visible

if TYPE_CHECKING:
    from jinja2 import Environment

#: The themes a page can be written in; ``system`` follows the reader's preference.
THEMES: tuple[str, ...] = ("system", "light", "dark")
DEFAULT_THEME = "system"

#: The most cases the case × model matrix shows open; a longer one waits in a closed disclosure.
OPEN_MATRIX_ROWS = 100

_TEMPLATES = "templates"
#: Header fields shown under a disclosure: long, and read less often than the run's identity.
_SETTINGS = ("Fingerprint", "Settings", "Metadata")


def theme_named(theme: str) -> str:
    """``theme`` when it is one of :data:`THEMES`; a configuration error naming them otherwise."""
    if theme not in THEMES:
        raise ConfigurationError(
            f"unknown report theme {theme!r}; accepted themes: {', '.join(THEMES)}"
        )
    return theme


def render_html(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
    *,
    theme: str = DEFAULT_THEME,
) -> str:
    """Render the whole report as one self-contained HTML page, ending with a newline."""
    return html_of(view_of(run, comparison, models, items), theme)


def html_of(view: ReportView, theme: str = DEFAULT_THEME) -> str:
    """The HTML page of a view, in ``theme`` (``system``, ``light`` or ``dark``)."""
    chosen = theme_named(theme)
    from markupsafe import Markup

    script, style = _asset("report.js"), _asset("report.css")
    template = _environment().get_template("report.html.j2")
    with collector_paused():
        page = template.render(
            view=view,
            page=_page(view),
            theme=chosen,
            # The page's own files, not anyone's data: shown as written, and the only style
            # and script the page's Content Security Policy lets run (by their hashes).
            style=Markup(style),
            script=Markup(script),
            style_hash=_digest(style),
            script_hash=_digest(script),
            legend=fmt.ESTIMATED_LEGEND,
        )
    return page if page.endswith("\n") else page + "\n"


# -- what the template reads ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tile:
    """One stat tile: a label, the figure, and a line under it."""

    label: str
    value: str
    note: str


@dataclass(frozen=True, slots=True)
class IntervalRow:
    """One model on the 0–100% axis: where its dot and interval sit, and the figures beside."""

    model: str
    at: float
    low: float | None
    high: float | None
    figures: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a case shows beside its samples: the input and the reference as defined."""

    input: str | None
    reference: str | None


@dataclass(frozen=True, slots=True)
class Page:
    """The view's sections by kind, and what the template cannot read from them directly."""

    summary: SummarySection | None
    verdict: VerdictSection | None
    models: ModelsSection | None
    comparison: ComparisonSection | None
    matrix: MatrixSection | None
    cases: CasesSection | None
    fixes: FixesSection | None
    tiles: tuple[Tile, ...]
    faults: dict[str, str]
    intervals: tuple[IntervalRow, ...]
    withheld: bool
    #: Each case of the cases section with what it was defined with (``None`` when the run
    #: kept no definition of it).
    shown: tuple[tuple[CaseView, Evidence | None], ...]
    identity: tuple[tuple[str, str], ...]
    settings: tuple[tuple[str, str], ...]


def _page(view: ReportView) -> Page:
    summary = view.section(SummarySection)
    verdict = view.section(VerdictSection)
    models = view.section(ModelsSection)
    comparison = view.section(ComparisonSection)
    faults = {}
    if verdict is not None:
        column = verdict.models.headers.index("faults")
        faults = {written(row[0]): written(row[column]) for row in verdict.models.rows}
    compared = None if comparison is None else comparison.comparison
    cases = view.section(CasesSection)
    return Page(
        summary=summary,
        verdict=verdict,
        models=models,
        comparison=comparison,
        matrix=view.section(MatrixSection),
        cases=cases,
        fixes=view.section(FixesSection),
        tiles=() if summary is None else _tiles(summary),
        faults=faults,
        intervals=()
        if models is None or view.model_comparison is None
        else _intervals(models, view.model_comparison),
        withheld=compared is not None and isinstance(compared.headline, WithheldHeadline),
        shown=() if cases is None else _shown_cases(cases, view.run),
        identity=tuple(f for f in view.header.fields if f[0] not in _SETTINGS),
        settings=tuple(f for f in view.header.fields if f[0] in _SETTINGS),
    )


def _shown_cases(section: CasesSection, run: Run) -> tuple[tuple[CaseView, Evidence | None], ...]:
    evidence = {
        snapshot.case_id: Evidence(
            _shown(snapshot.definition.get("input")),
            _shown(snapshot.definition.get("reference")),
        )
        for snapshot in run.cases
    }
    return tuple((case, evidence.get(case.case_id)) for case in section.cases)


def _tiles(summary: SummarySection) -> tuple[Tile, ...]:
    figures = summary.figures
    tiles = [
        Tile(
            "Pass rate",
            figures.pass_rate.text,
            f"{figures.passed} passed · {figures.failed} failed · {figures.errors} errors · "
            f"{figures.not_evaluated} not evaluated",
        ),
        Tile(
            "Checks pass", figures.check_pass_rate.text, f"check score {figures.check_score.text}"
        ),
        *(
            Tile(
                c.name,
                c.mean.text,
                f"judge · {c.scored} of {c.samples} scored · {c.errors} errored",
            )
            for c in summary.judged
        ),
        Tile(
            "Cost",
            figures.cost.text,
            f"per 1,000 samples {figures.cost_per_1000.text} · judge {figures.judge_cost.text}",
        ),
        Tile(
            "Latency",
            f"p50 {figures.latency_p50.text} · p95 {figures.latency_p95.text}",
            f"mean {figures.latency_avg.text}",
        ),
    ]
    return tuple(tiles)


def _intervals(section: ModelsSection, models: ModelComparison) -> tuple[IntervalRow, ...]:
    # The section's rows are the models best first, each with its figures written once.
    by_name: dict[str, ModelInterval] = {m.model: m for m in models.models}
    rows = []
    for row in section.intervals.rows:
        model = by_name.get(written(row[0]))
        if model is None:
            continue
        low, high = (None, None) if model.interval is None else model.interval
        rows.append(
            IntervalRow(
                model.model,
                _at(model.pass_rate),
                None if low is None else _at(low),
                None if high is None else _at(high),
                f"{written(row[2])} · {section.intervals.headers[3]} {written(row[3])} · "
                f"{written(row[1])} cases",
            )
        )
    return tuple(rows)


def _at(share: float) -> float:
    """A 0..1 share as a position on the 0–100% axis, kept on it."""
    return round(min(max(share, 0.0), 1.0) * 100, 3)


def _shown(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


# -- filters --------------------------------------------------------------------------------


def _cell(value: object) -> str:
    if isinstance(value, Figure | Phrase):
        return written(value)
    return "" if value is None else str(value)


#: One encoder for every block of evidence (``json.dumps`` with options builds one per call).
_PRETTY = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)


def _pretty(value: object) -> str:
    return _PRETTY.encode(value)


def _observation(view: SampleView) -> str | None:
    observation = view.sample.observation
    if observation is None:
        return None
    return _pretty(write(observation))


def _replay(view: SampleView) -> str | None:
    evidence = view.sample.metadata.get(EVIDENCE_KEY)
    return None if evidence is None else _pretty(evidence)


def _metadata(view: SampleView) -> str | None:
    metadata = view.sample.metadata
    if EVIDENCE_KEY not in metadata:
        return view.metadata  # the traceback is already apart
    rest = {key: value for key, value in metadata.items() if key not in (EVIDENCE_KEY, "traceback")}
    return reading.compact_json(rest) if rest else None


def _cost(view: SampleView) -> tuple[str, str] | None:
    """A sample's estimated cost and its working, for the figure's tooltip; else ``None``.

    The working is the view's (``2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate``);
    a sample stored without a rate that reads names the tokens the model rates applied to.
    """
    usage = view.sample.usage
    if usage is None or usage.cost_source != "estimated" or usage.cost_usd is None:
        return None
    working = view.cost_working or (
        f"estimated: {fmt.tokens(usage.input_tokens)} in + {fmt.tokens(usage.output_tokens)} "
        "out tokens × model rates"
    )
    return fmt.money(usage.cost_usd, estimated=True), working


#: One row of a case's metric table: the sample's row group (its label and how many rows it
#: spans) on its first row, the metric's six cells with its result's tone, and whether the
#: row ends its group.
MetricRow = tuple[tuple[str, int] | None, Cell, Cell, Cell, Cell, Cell, str, Cell, bool]


def _metric_rows(samples: tuple[SampleView, ...]) -> tuple[MetricRow, ...]:
    """Every metric row of a case's samples, grouped by sample, ready to write in one table."""
    rows: list[MetricRow] = []
    for sample in samples:
        if sample.metrics is None or not sample.metrics.rows:
            continue
        s = sample.sample
        label = f"sample {s.sample}" if s.model is None else f"sample {s.sample} · {s.model}"
        count = len(sample.metrics.rows)
        for index, (name, kind, score, threshold, result, why) in enumerate(sample.metrics.rows):
            group = (label, count) if index == 0 else None
            tone, last = cell_tone(_cell(result)), index == count - 1
            rows.append((group, name, kind, score, threshold, result, tone, why, last))
    return tuple(rows)


def _fix_title(item: FixItem) -> str:
    title = fixing.FAULT_TITLES.get(item.fault, item.fault)
    return f"Instruction change ({title.lower()})" if item.kind == "instruction" else title


def cell_tone(text: str) -> str:
    """The colour a matrix cell or a result takes: ``pass``, ``fail``, or none (``""``).

    The class names of the report's style sheet; the dashboard's matrix colours its cells by
    the same rule.
    """
    word = text.split(" ", 1)[0]
    return _TONES.get(word, "")


_TONES = {"pass": "pass", "passed": "pass", "fail": "fail", "failed": "fail", "error": "fail"}


def _finalize(value: Any) -> Any:
    """Every value the template prints: controls and bidirectional characters made visible.

    The page's own markup (``Markup``, a ``str`` subclass) passes as it is; everything else
    is escaped by the template after this.
    """
    if type(value) is str:
        # Most strings hold nothing to escape; isprintable() says so without a regex.
        return value if value.isprintable() else visible(value, lines=True)
    if isinstance(value, Figure | Phrase):
        return visible(written(value), lines=True)
    return value


@cache
def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def _asset(name: str) -> str:
    return (resources.files("assay_agents.report") / _TEMPLATES / name).read_text(encoding="utf-8")


@cache
def _environment() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("assay_agents.report", _TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(
        cell=_cell,
        tone=cell_tone,
        observation=_observation,
        replay=_replay,
        metadata=_metadata,
        estimated_cost=_cost,
        fix_title=_fix_title,
        fix_markdown=fix_item_markdown,
        metric_rows=_metric_rows,
        thousands=fmt.tokens,  # a count with thousands separators, as every count is written
    )
    environment.globals.update(
        no_baseline=comparing.NO_BASELINE,
        noise_labels=tuple(comparing.NOISE_LABELS.values()),
        missing=fmt.MISSING,
        metric_headers=tuple(reading.METRIC_HEADERS),
        open_matrix_rows=OPEN_MATRIX_ROWS,
    )
    return environment
