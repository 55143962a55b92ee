"""One typed reading of a run, built once and rendered by every format.

:func:`build_view` reads a :class:`~assay_agents.report.Report` (or a stored :class:`Run`, or an
``Evaluation``) into a :class:`ReportView`: its sections in reading order (header, summary,
verdict, model comparison, comparison, case × model, what to fix, cases), each holding rows of
cells. A cell is a plain string as the run stored it, a :class:`Figure` (a number with the
text :mod:`assay_agents.report.format` wrote for it) or a :class:`Phrase` mixing the two. Renderers
lay the sections out and escape the strings for their medium; none of them formats a number.

>>> view = build_view(run)  # doctest: +SKIP
>>> [section.title for section in view.sections]  # doctest: +SKIP
['Summary', 'Comparison', 'What to fix', 'Cases']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from assay_agents.compare import (
    Change,
    Comparison,
    ModelComparison,
    StoredComparison,
    compare_models,
)
from assay_agents.report import _comparing as comparing
from assay_agents.report import _fixing as fixing
from assay_agents.report import _reading as reading
from assay_agents.report import format as fmt
from assay_agents.report import prose
from assay_agents.report._collecting import collector_paused
from assay_agents.report._pacing import pacing_lines
from assay_agents.results import Run, RunSummary, SampleResult, Tally
from assay_agents.results.fixes import FixItem, fix_items
from assay_agents.results.sample_facts import SampleFacts
from assay_agents.results.tracebacks import metadata_without_traceback, traceback_of

Medium = Literal["text", "markdown"]


@dataclass(frozen=True, slots=True)
class Figure:
    """A number and its text, written by :mod:`assay_agents.report.format`.

    ``value`` is the number as stored (``None`` when missing); a pass fraction also keeps its
    ``total``, because Markdown writes it its own way (``14/16 (88%)``, not ``14/16 · 88%``),
    and the ``limits`` (a gate's minimum) its percentage was read against.
    """

    text: str
    value: float | int | None = None
    total: int | None = None
    limits: tuple[float, ...] = ()

    def written(self, medium: Medium = "text") -> str:
        """The figure as ``medium`` writes it."""
        if self.total is not None and medium == "markdown":
            return fmt.fraction_md(int(self.value or 0), self.total, *self.limits)
        return self.text

    @classmethod
    def fraction(cls, passed: int, total: int, *limits: float) -> Figure:
        """``passed`` of ``total``, with its percentage (on its side of each of ``limits``)."""
        return cls(fmt.fraction(passed, total, *limits), passed, total, tuple(limits))


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words with figures among them: ``checks pass 2/4 · 50%``."""

    parts: tuple[str | Figure, ...]

    def written(self, medium: Medium = "text") -> str:
        """The phrase as ``medium`` writes its figures."""
        return "".join(p if isinstance(p, str) else p.written(medium) for p in self.parts)


Cell = str | Figure | Phrase
Row = tuple[Cell, ...]
Fields = tuple[tuple[str, Cell], ...]


def written(cell: Cell, medium: Medium = "text") -> str:
    """Any cell as ``medium`` writes it (strings as stored: the renderer escapes them)."""
    return cell if isinstance(cell, str) else cell.written(medium)


@dataclass(frozen=True, slots=True)
class Table:
    """Headers and rows of cells, each row as long as the headers."""

    headers: tuple[str, ...]
    rows: tuple[Row, ...]

    def without(self, header: str) -> Table:
        """The table without the column named ``header``."""
        if header not in self.headers:
            return self
        skip = self.headers.index(header)
        return Table(
            self.headers[:skip] + self.headers[skip + 1 :],
            tuple(row[:skip] + row[skip + 1 :] for row in self.rows),
        )


# -- sections -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HeaderSection:
    """What the report is about: ``suite · agent``, then the run's identity and settings."""

    title: str
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Figures:
    """A tally's figures (the run's, or one model's), each written once.

    Counts are plain numbers; everything a reader sees as a rate, a score, a duration, a token
    count or money is a :class:`Figure`.
    """

    samples: int
    passed: int
    failed: int
    errors: int
    not_evaluated: int
    other_model: int
    cases: int
    cases_passed: int
    pass_rate: Figure
    check_pass_rate: Figure
    check_score: Figure
    latency_avg: Figure
    latency_p50: Figure
    latency_p95: Figure
    input_tokens: Figure
    output_tokens: Figure
    tokens: Figure
    cost: Figure
    cost_per_1000: Figure
    judge_calls: str
    judge_calls_said: str
    judge_cost: Figure
    #: The agents' model calls answered from the cache (``--cache-model-calls``).
    model_cached: int = 0


@dataclass(frozen=True, slots=True)
class CriterionFigures:
    """One judge criterion: its mean, how many samples it scored and errored, its passes."""

    name: str
    mean: Figure
    scored: int
    samples: int
    errors: int
    passed: Figure
    vote_spread: Figure


@dataclass(frozen=True, slots=True)
class Limits:
    """The gate's thresholds a run's figures are read against: none for a run without a gate.

    A figure a gate read (the deterministic pass rate, a judge criterion's mean) is written on
    its side of the gate's threshold wherever the report shows it: ``69.5%`` under a 70%
    minimum, never ``70%``.
    """

    pass_rate: tuple[float, ...] = ()
    judge: tuple[float, ...] = ()


#: No gate: figures are read against nothing but 0% and 100%.
NO_LIMITS = Limits()


def limits_of(run: Run) -> Limits:
    """The thresholds of the gate ``run`` was decided with (none when it kept no gate)."""
    kept = run.settings.gate
    gate = None if kept is None else kept.thresholds
    if gate is None:
        return NO_LIMITS
    return Limits(
        tuple(x for x in (gate.min_pass_rate,) if x is not None),
        tuple(x for x in (gate.min_judge_score,) if x is not None),
    )


def figures_of(
    tally: Tally,
    *,
    estimated: bool,
    limits: Limits = NO_LIMITS,
    checked: tuple[int, int] | None = None,
) -> Figures:
    """Every figure of ``tally``; money reads ``~`` when ``estimated`` or partly priced.

    Rates a gate read stay on their side of its ``limits``. ``checked`` (samples whose checks
    all passed, of how many) writes the deterministic pass rate as a fraction, ``42/100 · 42%``.
    """
    judge_cost = fmt.money(tally.judge_cost_usd, estimated=tally.judge_cost_estimated)
    partial = reading.partial(tally)
    return Figures(
        samples=tally.samples,
        passed=tally.passed,
        failed=tally.failed,
        errors=tally.errors,
        not_evaluated=tally.not_evaluated,
        other_model=tally.other_model,
        cases=tally.cases,
        cases_passed=tally.cases_passed,
        pass_rate=Figure.fraction(tally.passed, tally.evaluated, *limits.pass_rate),
        check_pass_rate=_check_pass_rate(tally, limits, checked),
        check_score=Figure(fmt.score(tally.check_score), tally.check_score),
        latency_avg=_duration(tally.latency_avg_ms),
        latency_p50=_duration(tally.latency_p50_ms),
        latency_p95=_duration(tally.latency_p95_ms),
        input_tokens=Figure(fmt.tokens(tally.input_tokens), tally.input_tokens),
        output_tokens=Figure(fmt.tokens(tally.output_tokens), tally.output_tokens),
        tokens=Figure(fmt.tokens(tally.input_tokens + tally.output_tokens)),
        cost=Figure(
            fmt.money(tally.cost_usd, estimated=estimated, partial=partial), tally.cost_usd
        ),
        cost_per_1000=Figure(
            fmt.money(tally.cost_per_1000_usd, estimated=estimated, partial=partial),
            tally.cost_per_1000_usd,
        ),
        judge_calls=reading.judge_calls(tally, noun=False),
        judge_calls_said=reading.judge_calls(tally),
        judge_cost=Figure(judge_cost, tally.judge_cost_usd),
        model_cached=tally.model_cached,
    )


def _check_pass_rate(tally: Tally, limits: Limits, checked: tuple[int, int] | None) -> Figure:
    rate = tally.check_pass_rate
    # The counts are the samples'; a stored rate they do not give is written on its own.
    if checked is not None and rate is not None and checked[1] and checked[0] / checked[1] == rate:
        return Figure.fraction(*checked, *limits.pass_rate)
    return Figure(fmt.score_against(rate, *limits.pass_rate), rate)


def _duration(millis: float | None) -> Figure:
    return Figure(fmt.duration_ms(millis), millis)


def criteria_of(tally: Tally, limits: Limits = NO_LIMITS) -> tuple[CriterionFigures, ...]:
    """Each judge criterion's figures, in the tally's order (means against the gate's)."""
    return tuple(
        CriterionFigures(
            name=name,
            mean=Figure(fmt.score_against(c.mean, *limits.judge), c.mean),
            scored=c.scored,
            samples=c.samples,
            errors=c.errors,
            passed=Figure.fraction(c.passed, c.samples),
            vote_spread=Figure(fmt.number(c.mean_vote_spread), c.mean_vote_spread),
        )
        for name, c in tally.judge.items()
    )


@dataclass(frozen=True, slots=True)
class SummarySection:
    """The deterministic figures, the judge criteria apart, and the same per model.

    ``note`` says when the figures were drawn from the samples of an unfinished run.
    """

    note: str | None
    fields: Fields
    criteria: Table | None
    judge_usage: str | None
    by_model: Table | None
    model_costs: Table | None
    model_criteria: Table | None
    figures: Figures
    judged: tuple[CriterionFigures, ...]
    models: tuple[tuple[str, Figures], ...]
    #: Failing samples per category, the rates and outcomes (a subset of ``fields``).
    reliability: Fields = ()
    #: What rate limits did: the retries and waits, then each concurrency adjustment.
    rate_limits: tuple[str, ...] = ()
    title: str = "Summary"


@dataclass(frozen=True, slots=True)
class Pick:
    """The judge's pick of the best model, and why."""

    model: str
    judge: str
    rationale: str


@dataclass(frozen=True, slots=True)
class VerdictSection:
    """The judge's pick (when there is one) and what it rests on per model."""

    pick: Pick | None
    models: Table
    judge_usage: str
    title: str = "Verdict"


@dataclass(frozen=True, slots=True)
class ModelsSection:
    """Each model's pass rate with its interval, the pairs, and the sentence reading them."""

    intervals: Table
    pairs: Table | None
    conclusion: str
    method: str
    title: str = "Model comparison"


@dataclass(frozen=True, slots=True)
class ChangeGroup:
    """One kind of change (or pairing) with its rows."""

    name: str
    table: Table
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True, slots=True)
class ComparisonSection:
    """The comparison with the baseline: the pairing first, defects before any figure.

    ``baseline`` says which baseline and why (``None`` for a run stored before runs said);
    without a comparison ``comparison`` is ``None`` and the rest is empty.
    """

    baseline: str | None
    comparison: Comparison | None
    pairing: str = ""
    defects: tuple[str, ...] = ()
    headline: Cell = ""
    counts: str = ""
    rules: str = ""
    movements: tuple[str, ...] = ()
    pairings: tuple[ChangeGroup, ...] = ()
    changes: tuple[ChangeGroup, ...] = ()
    title: str = "Comparison"

    @property
    def intro(self) -> tuple[Cell, ...]:
        """The lines before any change, in reading order."""
        return (
            self.pairing,
            *self.defects,
            self.headline,
            self.counts,
            self.rules,
            *(f"Item {line}" for line in self.movements),
        )


@dataclass(frozen=True, slots=True)
class MatrixSection:
    """Each case's passing samples on each model, with its fault."""

    table: Table
    title: str = "Case × model"


@dataclass(frozen=True, slots=True)
class FixesSection:
    """What to fix: one item per fault kind and per distinct instruction change."""

    items: tuple[FixItem, ...]
    title: str = "What to fix"


@dataclass(frozen=True, slots=True)
class SampleView:
    """One sample: its heading, metrics and evidence.

    ``cost_working`` is how an estimated cost was reached (``2,328 in × $5.00/M + 423 out ×
    $30.00/M · catalog rate``), for a format that can show it beside the figure; ``None`` for
    a reported cost or a rate that does not read.
    """

    sample: SampleResult
    heading: str
    metrics: Table | None
    actions: tuple[str, ...]
    trace: str | None
    metadata: str | None
    cost_working: str | None = None
    #: The sample's trace and its judge calls' traces, when a tracer recorded them.
    traces: str | None = None


@dataclass(frozen=True, slots=True)
class CaseView:
    """One case: its number, heading, behaviours per model and samples."""

    number: int
    case_id: str
    heading: str
    behaviours: tuple[Phrase, ...]
    samples: tuple[SampleView, ...]


@dataclass(frozen=True, slots=True)
class CasesSection:
    """Every case in position order, then samples of cases the run did not snapshot."""

    cases: tuple[CaseView, ...]
    title: str = "Cases"

    def case(self, case_id: str) -> CaseView:
        """The case called ``case_id``; ``KeyError`` when the run has none."""
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)


Section = (
    SummarySection
    | VerdictSection
    | ModelsSection
    | ComparisonSection
    | MatrixSection
    | FixesSection
    | CasesSection
)
SectionT = TypeVar("SectionT", bound=Section)


@dataclass(frozen=True, slots=True)
class ReportView:
    """A run's report as typed sections, and what it was built from.

    ``estimated`` is whether any money figure reads ``~`` (estimated from tokens, or covering
    only some samples; the report then carries :data:`assay_agents.report.format.ESTIMATED_LEGEND`
    once). ``run``, ``comparison`` and
    ``model_comparison`` are the sources, for formats that write the record itself (JSON).
    """

    header: HeaderSection
    sections: tuple[Section, ...]
    estimated: bool
    run: Run
    comparison: Comparison | None
    model_comparison: ModelComparison | None
    fix_items: tuple[FixItem, ...]

    def section(self, kind: type[SectionT]) -> SectionT | None:
        """The section of type ``kind``, or ``None`` when the report has none."""
        return next((s for s in self.sections if isinstance(s, kind)), None)


# -- building -------------------------------------------------------------------------------


class Reportable(Protocol):
    """What a view is built from besides a run: a report, or an evaluation."""

    @property
    def run(self) -> Run: ...  # noqa: D102

    @property
    def comparison(self) -> Comparison | None: ...  # noqa: D102

    @property
    def model_comparison(self) -> ModelComparison | None: ...  # noqa: D102


def build_view(source: Reportable | Run) -> ReportView:
    """Read a :class:`~assay_agents.report.Report`, an ``Evaluation`` or a stored run, once.

    A run alone is read with the comparisons stored with it (its models compared when it
    stored none); a report brings its own, and the fix items it resolved.
    """
    if isinstance(source, Run):
        stored = source.comparison or StoredComparison()
        return view_of(source, stored.baseline, stored.models or model_comparison_of(source))
    if not isinstance(getattr(source, "run", None), Run):
        raise TypeError(f"cannot build a report view from {type(source).__name__}")
    items = getattr(source, "fix_items", None)
    return view_of(source.run, source.comparison, source.model_comparison, items)


def model_comparison_of(run: Run) -> ModelComparison | None:
    """The run's models compared, when it ran two or more."""
    if len({sample.model for sample in run.samples if sample.model is not None}) < 2:
        return None
    return compare_models(run)


def view_of(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
    *,
    evidence: bool = True,
    facts: SampleFacts | None = None,
) -> ReportView:
    """The view of ``run`` with these comparisons and fix items (by default the run's own).

    Without ``evidence`` the case × model matrix and the cases are left out: a summary (the
    terminal's) reads the figures and need not lay out every sample. ``facts`` are what the
    figures read of the samples (by default, of ``run.samples``): with them and the fix
    items, a run holding its summary and no samples reads as the whole run does.
    """
    with collector_paused():
        return _view_of(run, comparison, models, items, evidence=evidence, facts=facts)


def _view_of(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None,
    items: Sequence[FixItem] | None,
    *,
    evidence: bool,
    facts: SampleFacts | None,
) -> ReportView:
    shown = tuple(fix_items(run.samples) if items is None else items)
    read = SampleFacts.of(run.samples) if facts is None else facts
    sections: list[Section | None] = [
        summary_section(run, read),
        verdict_section(run),
        None if models is None else models_section(models),
        comparison_section(run, comparison),
        matrix_section(run) if evidence else None,
        FixesSection(shown),
        cases_section(run) if evidence else None,
    ]
    return ReportView(
        header=header_section(run),
        sections=tuple(s for s in sections if s is not None),
        estimated=reading.marked_if(reading.summary_of(run)[0], read.estimated_for()),
        run=run,
        comparison=comparison,
        model_comparison=models,
        fix_items=shown,
    )


def header_section(run: Run) -> HeaderSection:
    """The run's identity, timing and settings."""
    return HeaderSection(reading.title(run), tuple(reading.header_rows(run)))


def _fields(rows: reading.Rows) -> Fields:
    return tuple((label, value) for label, value in rows)


def summary_section(run: Run, facts: SampleFacts | None = None) -> SummarySection:
    """The deterministic headline figures, the judge criteria apart, and per model.

    Every figure the run's gate read is written on its side of the gate's threshold.
    ``facts`` are what it reads of the samples (by default, of ``run.samples``).
    """
    read = SampleFacts.of(run.samples) if facts is None else facts
    summary, note = reading.summary_of(run)
    limits = limits_of(run)
    rows = reading.summary_rows(summary, read.estimated_for(), _frac, limits.pass_rate)
    fields = list(_fields(rows))
    fields[1] = ("Pass rate", Figure.fraction(summary.passed, summary.evaluated, *limits.pass_rate))
    by_model = model_costs = model_criteria = None
    if summary.by_model:
        by_model = _model_table(run, summary, limits)
        costs = reading.model_cost_rows(run, summary, read.estimated_for)
        model_costs = _table(reading.MODEL_COST_HEADERS, costs)
        headers, judged = reading.model_judge_table(summary, limits.judge)
        model_criteria = _table(headers, judged) if judged else None
    return SummarySection(
        note=note,
        fields=tuple(fields),
        criteria=_criteria(summary, limits),
        judge_usage=reading.judge_usage(summary) if summary.judge and summary.judge_calls else None,
        by_model=by_model,
        model_costs=model_costs,
        model_criteria=model_criteria,
        figures=figures_of(
            summary,
            estimated=summary.estimated > 0,
            limits=limits,
            checked=read.checked,
        ),
        judged=criteria_of(summary, limits),
        models=tuple(
            (
                label,
                figures_of(
                    tally,
                    estimated=tally.estimated > 0,
                    limits=limits,
                    checked=read.checked_for(label),
                ),
            )
            for label, tally in summary.by_model.items()
        ),
        reliability=_fields(reading.reliability_rows(summary, limits.pass_rate)),
        rate_limits=pacing_lines(read.pacing),
    )


def _frac(passed: int, total: int) -> str:
    return fmt.fraction(passed, total)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Cell]]) -> Table:
    return Table(tuple(headers), tuple(tuple(row) for row in rows))


def _criteria(tally: Tally, limits: Limits) -> Table | None:
    if not tally.judge:
        return None
    headers, rows = reading.criterion_table(tally, _frac, limits.judge)
    passed = headers.index("passed")
    cells: list[list[Cell]] = [
        [*row[:passed], Figure.fraction(c.passed, c.samples), *row[passed + 1 :]]
        for row, c in zip(rows, tally.judge.values(), strict=True)
    ]
    return _table(headers, cells)


def _model_table(run: Run, summary: RunSummary, limits: Limits) -> Table:
    rows = reading.model_rows(run, summary, _frac, limits.pass_rate)
    cells: list[list[Cell]] = [
        [row[0], row[1], Figure.fraction(t.passed, t.evaluated, *limits.pass_rate), *row[3:]]
        for row, t in zip(rows, summary.by_model.values(), strict=True)
    ]
    return _table(reading.MODEL_HEADERS, cells)


def verdict_section(run: Run) -> VerdictSection | None:
    """The judge's pick and each model's rates and faults; none for one model unjudged."""
    summary, _ = reading.summary_of(run)
    if run.verdict is None and len(summary.by_model) < 2:
        return None
    pick = (
        None
        if run.verdict is None
        else Pick(run.verdict.model, run.verdict.judge, run.verdict.rationale)
    )
    limits = limits_of(run)
    rows: list[list[Cell]] = [
        [row[0], Figure.fraction(t.passed, t.evaluated, *limits.pass_rate), *row[2:]]
        for row, t in zip(
            fixing.verdict_rows(summary, _frac), summary.by_model.values(), strict=True
        )
    ]
    return VerdictSection(pick, _table(fixing.VERDICT_HEADERS, rows), fixing.run_judge_usage(run))


def models_section(models: ModelComparison) -> ModelsSection:
    """The model comparison: intervals, pairs, conclusion and method."""
    pairs = (
        _table(comparing.pair_headers(models), comparing.pair_rows(models))
        if models.pairs
        else None
    )
    return ModelsSection(
        _table(comparing.model_interval_headers(models), comparing.model_interval_rows(models)),
        pairs,
        prose.conclusion(models),
        prose.method(models),
    )


def comparison_section(run: Run, comparison: Comparison | None) -> ComparisonSection:
    """The comparison with the baseline, or the line saying there is none."""
    said = comparing.baseline_line(run, comparison)
    if comparison is None:
        return ComparisonSection(said, None)
    return replace(compared_section(comparison), baseline=said)


def compared_section(comparison: Comparison) -> ComparisonSection:
    """Any two runs' comparison on its own (``assay-agents compare``): no baseline line."""
    pairings = tuple(
        ChangeGroup(
            name, _table(comparing.PAIRING_HEADERS, [comparing.pairing_row(i) for i in items])
        )
        for name, items in (
            ("Excluded", comparison.excluded),
            ("Intended changes", comparison.intended_changes),
        )
        if items
    )
    changes = tuple(
        ChangeGroup(
            name, _table(comparing.CHANGE_HEADERS, [comparing.change_row(c) for c in found]), found
        )
        for kind, name in comparing.CHANGE_SECTIONS
        if (found := comparison.of_kind(kind))
    )
    return ComparisonSection(
        baseline=None,
        comparison=comparison,
        pairing=prose.pairing_line(comparison),
        defects=tuple(prose.defect_lines(comparison)),
        headline=_headline(comparison),
        counts=comparing.counts_line(comparison),
        rules=comparing.rules_line(comparison),
        movements=tuple(prose.movement_lines(comparison)),
        pairings=pairings,
        changes=changes,
    )


def _headline(comparison: Comparison) -> Cell:
    from assay_agents.compare import WithheldHeadline

    headline = comparison.headline
    if isinstance(headline, WithheldHeadline) or headline.delta is None:
        return comparing.headline_line(comparison, _frac)
    return Phrase(
        (
            "Pass rate over the compared items: ",
            Figure.fraction(headline.before_passed, headline.before_evaluated),
            " → ",
            Figure.fraction(headline.after_passed, headline.after_evaluated),
            f" ({fmt.points(headline.delta)}, {comparing.NOISE_LABELS[headline.noise]})",
        )
    )


def matrix_section(run: Run) -> MatrixSection | None:
    """The case × model matrix, when the run has samples."""
    if not run.samples:
        return None
    headers, rows = fixing.matrix(run)
    return MatrixSection(_table(headers, rows))


def matrix_cell(passed: int, samples: int, faults: Sequence[tuple[str, int]] = ()) -> str:
    """A case × model cell from counts, as :func:`matrix_section` writes it from samples.

    ``passed`` of ``samples`` (``pass 2/2``, ``fail 1/3``; ``—`` without samples) and the most
    common of ``faults`` (each fault with its count, in the order the samples first show
    them; the first among equals). A page that counts samples in the database writes its
    cells with it.
    """
    return fixing.matrix_cell(passed, samples, faults)


def cases_section(run: Run) -> CasesSection:
    """Every case with its samples."""
    return CasesSection(
        tuple(
            _case(number, block) for number, block in enumerate(reading.case_blocks(run), start=1)
        )
    )


def _case(number: int, block: reading.CaseBlock) -> CaseView:
    return CaseView(
        number,
        block.case_id,
        block.heading,
        tuple(_behaviours(block)),
        tuple(sample_view(sample) for sample in block.samples),
    )


def _behaviours(block: reading.CaseBlock) -> list[Phrase]:
    from assay_agents.results.reliability import item_rates

    models = [sample.model for sample in block.samples if sample.evaluated]
    if len(set(models)) == len(models):
        return []  # one sample per model: no model's behaviour can vary
    phrases = []
    for rate in item_rates(block.samples):
        if rate.samples < 2:
            continue
        who = "" if rate.model is None else f"{rate.model}: "
        phrases.append(
            Phrase(
                (
                    f"{who}{reading.plural(rate.behaviours, 'behaviour')} in {rate.samples} "
                    "samples · checks pass ",
                    Figure.fraction(rate.passed, rate.samples),
                )
            )
        )
    return phrases


def sample_view(sample: SampleResult) -> SampleView:
    """One sample's heading, metrics, actions, traceback and metadata."""
    metrics = (
        _table(reading.METRIC_HEADERS, [reading.metric_row(m) for m in sample.metrics])
        if sample.metrics
        else None
    )
    metadata = metadata_without_traceback(sample)
    return SampleView(
        sample=sample,
        heading=reading.sample_heading(sample),
        metrics=metrics,
        actions=tuple(reading.action_lines(sample.actions)),
        trace=traceback_of(sample),
        metadata=reading.compact_json(metadata) if metadata else None,
        cost_working=_cost_working(sample),
        traces=reading.traces_line(sample.traces),
    )


def _cost_working(sample: SampleResult) -> str | None:
    usage = sample.usage
    if usage is None or usage.cost_source != "estimated":
        return None
    working = fmt.cost_working(
        usage.input_tokens, usage.output_tokens, sample.metadata.get("cost_rate")
    )
    return None if working == fmt.MISSING else working
