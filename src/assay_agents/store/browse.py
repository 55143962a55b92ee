"""Reading the history a page at a time: filtered runs, one case of a run, a case's history.

The dashboard reads these through :class:`~assay_agents.store.Store`. Each answer is built from the
stored summaries and from the one case asked about: no run is loaded whole to list it.
Every value in a query is a bound parameter; the metadata key is one too.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Float,
    RowMapping,
    String,
    and_,
    exists,
    func,
    literal,
    or_,
    select,
)

from assay_agents.errors import StoreError
from assay_agents.record import RecordError, read_comparison, read_summary
from assay_agents.results import MetricResult, Run, RunStatus, RunSummary, SampleResult
from assay_agents.results.baseline import RunOutcome
from assay_agents.results.run import Lease
from assay_agents.results.sample_facts import SampleFacts
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION
from assay_agents.store import _reads, _rows
from assay_agents.store._lease import lease_from
from assay_agents.store._tables import metrics, run_cases, runs, samples

#: The stored statuses a run page can be filtered by (``stale`` is a running run whose
#: owner stopped beating: the application layer tells them apart).
STORED_STATUSES = ("running", "completed", "interrupted")


@dataclass(frozen=True, kw_only=True)
class RunFilter:
    """Which runs to list: each field that is not ``None`` must match.

    ``model`` is one of the run's model labels; ``started_from`` and ``started_before``
    bound the start time (inclusive, exclusive); ``metadata`` is ``(key, value)``: a stored
    string equal to ``value``, or a stored number equal to it when ``value`` reads as one
    (``7`` matches ``7``, ``7.0`` and ``"7"``). ``beat_before`` keeps running runs whose last
    sign of life (the heartbeat, else the start) is older than it (lapsed leases: stale);
    ``beat_from`` keeps those whose last sign of life is not.
    """

    suite: str | None = None
    agent: str | None = None
    model: str | None = None
    status: str | None = None
    started_from: datetime | None = None
    started_before: datetime | None = None
    metadata: tuple[str, str] | None = None
    beat_before: datetime | None = None
    beat_from: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class LineFigures:
    """The figures of a run's stored summary that a list shows.

    ``evaluated`` is what the pass rate is out of; ``judge`` maps each criterion to its mean.
    """

    passed: int
    evaluated: int
    check_score: float | None
    check_pass_rate: float | None
    judge: Mapping[str, float | None]
    cost_usd: float | None
    cost_basis: str | None

    @classmethod
    def of(cls, summary: RunSummary) -> LineFigures:
        """The figures of a summary read whole."""
        return cls(
            passed=summary.passed,
            evaluated=summary.evaluated,
            check_score=summary.check_score,
            check_pass_rate=summary.check_pass_rate,
            judge={name: c.mean for name, c in summary.judge.items()},
            cost_usd=summary.cost_usd,
            cost_basis=summary.cost_basis,
        )


@dataclass(frozen=True, kw_only=True)
class RunLine:
    """A run as a list shows it: identity, state, and what its stored summary says.

    ``figures`` is ``None`` for a run without a stored summary; ``regressions`` counts the
    changes against its baseline (``None`` without a stored comparison with one); ``noise``
    holds the noise floor its comparison measured per judge criterion.
    """

    id: str
    sequence: int
    number: int
    suite: str
    agent: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None
    baseline_id: str | None
    outcome: RunOutcome | None
    metadata: Mapping[str, Any]
    lease: Lease | None
    figures: LineFigures | None
    regressions: int | None
    noise: Mapping[str, float]

    @property
    def handle(self) -> str:
        """``suite#12``: the run by its number in its suite's history."""
        return f"{self.suite}#{self.number}"


@dataclass(frozen=True, kw_only=True)
class RunsPage:
    """Runs newest first (what their stored summaries say, no samples), and whether more follow."""

    runs: tuple[RunLine, ...]
    offset: int
    more: bool


@dataclass(frozen=True, kw_only=True)
class ModelTally:
    """One case's samples on one model: how many, how many passed, and their faults.

    ``faults`` holds each fault with its count, in the order the samples (by index) first
    show them.
    """

    samples: int
    passed: int
    faults: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, kw_only=True)
class CaseTally:
    """One case of a run in a list of its cases: its id, name, samples per status and model.

    ``models`` maps each model label (``None`` for a run without models) the case has
    samples of to its tally there.
    """

    case_id: str
    name: str
    statuses: Mapping[str, int]
    models: Mapping[str | None, ModelTally] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class CasesPage:
    """Some of a run's cases, from ``offset``, of ``total``.

    ``models`` are the run's models with samples, in the order a report's case × model
    matrix sets its columns (as the whole run's samples first show them).
    """

    cases: tuple[CaseTally, ...]
    offset: int
    total: int
    models: tuple[str | None, ...] = ()


@dataclass(frozen=True, kw_only=True)
class RunOverview:
    """A run read for its page without its samples.

    ``run`` holds its summary and stored comparison (no cases or samples); ``facts`` are
    what the figures read of its samples; ``faulted`` are its samples with a fault (what to
    fix reads only these), in report order; ``cases`` one page of its cases.
    """

    run: Run
    facts: SampleFacts
    faulted: tuple[SampleResult, ...]
    cases: CasesPage


@dataclass(frozen=True, kw_only=True)
class CaseRun:
    """One case in one run: the run, the case's definition fingerprint, its samples' statuses."""

    run_id: str
    number: int
    started_at: datetime
    fingerprint: str | None
    statuses: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class Names:
    """The suites, agents and models the history holds, for filter menus."""

    suites: tuple[str, ...]
    agents: tuple[str, ...]
    models: tuple[str, ...]


#: How many completed runs' heads a store keeps decoded.
HEADS_KEPT = 1_000


class Heads:
    """Completed runs' heads, decoded once, by sequence (a completed run never changes).

    Safe to share between the threads of one server; the oldest are dropped past
    :data:`HEADS_KEPT`.
    """

    def __init__(self) -> None:
        self._runs: OrderedDict[int, Run] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sequence: int) -> Run | None:
        """The head kept for ``sequence``, if any."""
        with self._lock:
            found = self._runs.get(sequence)
            if found is not None:
                self._runs.move_to_end(sequence)
            return found

    def keep(self, sequence: int, run: Run) -> None:
        """Keep ``run``'s head (only a completed run's: it never changes)."""
        with self._lock:
            self._runs[sequence] = run
            while len(self._runs) > HEADS_KEPT:
                self._runs.popitem(last=False)


#: The columns a list reads: never the settings, cases, samples or the whole comparison.
_LISTED = (
    runs.c.sequence,
    runs.c.id,
    runs.c.suite,
    runs.c.agent,
    runs.c.status,
    runs.c.started_at,
    runs.c.finished_at,
    runs.c.baseline_id,
    runs.c.outcome,
    runs.c.metadata,
    runs.c.summary,
    runs.c.owner_host,
    runs.c.owner_pid,
    runs.c.owner_token,
    runs.c.owner_started,
    runs.c.heartbeat_at,
)


def runs_page(connection: Connection, where: RunFilter, *, offset: int, limit: int) -> RunsPage:
    """The ``limit`` runs after ``offset`` matching ``where``, newest first.

    Reads the listed columns, the stored summary and two figures of the stored comparison
    (its regressions and noise floors), and numbers the page's runs with one count per suite.
    """
    query = select(*_LISTED, *_comparison_figures(connection)).where(
        *_conditions(connection, where)
    )
    query = query.order_by(runs.c.sequence.desc()).offset(offset).limit(limit + 1)
    listed = connection.execute(query).mappings().all()
    shown = listed[:limit]
    numbers = _numbers(connection, [(row["suite"], row["sequence"]) for row in shown])
    lines = tuple(_line(connection, row, numbers[row["sequence"]]) for row in shown)
    return RunsPage(runs=lines, offset=offset, more=len(listed) > limit)


def _comparison_figures(connection: Connection) -> tuple[Any, ...]:
    """The stored comparison's regression count, its baseline's kind and its noise floors."""
    column = runs.c.comparison
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        baseline = func.cast(column, JSONB).op("->")(literal("baseline", String()))
        return (
            baseline.op("->>")(literal("regressions", String())).label("regressions"),
            func.jsonb_typeof(baseline).label("compared"),
            baseline.op("->")(literal("noise_floor", String()))
            .op("->>")(literal("metrics", String()))
            .label("noise"),
        )
    return (
        func.json_extract(column, "$.baseline.regressions").label("regressions"),
        func.json_type(column, "$.baseline").label("compared"),
        func.json_extract(column, "$.baseline.noise_floor.metrics").label("noise"),
    )


def _numbers(connection: Connection, listed: list[tuple[str, int]]) -> dict[int, int]:
    """Each listed run's number in its suite: one count per suite, then the runs between."""
    numbers: dict[int, int] = {}
    by_suite: dict[str, list[int]] = defaultdict(list)
    for suite, sequence in listed:
        by_suite[suite].append(sequence)
    for suite, sequences in by_suite.items():
        low, high = min(sequences), max(sequences)
        before = connection.execute(
            select(func.count()).where(runs.c.suite == suite, runs.c.sequence < low)
        ).scalar_one()
        between = connection.execute(
            select(runs.c.sequence)
            .where(runs.c.suite == suite, runs.c.sequence >= low, runs.c.sequence <= high)
            .order_by(runs.c.sequence)
        ).scalars()
        wanted = set(sequences)
        for rank, sequence in enumerate(between, start=int(before) + 1):
            if sequence in wanted:
                numbers[int(sequence)] = rank
    return numbers


def _line(connection: Connection, row: RowMapping, number: int) -> RunLine:
    try:
        outcome = None if row["outcome"] is None else RunOutcome(row["outcome"])
        status = RunStatus(row["status"])
    except ValueError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None
    regressions, noise = _compared(connection, row)
    return RunLine(
        id=row["id"],
        sequence=int(row["sequence"]),
        number=number,
        suite=row["suite"],
        agent=row["agent"],
        status=status,
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        baseline_id=row["baseline_id"],
        outcome=outcome,
        metadata=row["metadata"] if isinstance(row["metadata"], dict) else {},
        lease=lease_from(row),
        figures=_figures(row),
        regressions=regressions,
        noise=noise,
    )


def _figures(row: RowMapping) -> LineFigures | None:
    """The list's figures of the stored summary: read as stored, else through the codec."""
    stored = row["summary"]
    if stored is None:
        return None
    quick = _quick_figures(stored)
    if quick is not None:
        return quick
    try:
        return LineFigures.of(read_summary(stored))
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None


def _quick_figures(stored: object) -> LineFigures | None:
    """The figures of a summary of this version, read as stored when each is of its kind.

    Anything else (an older form, a value that would not read) is ``None``: left to the
    codec, which reads it as a report would.
    """
    if not isinstance(stored, dict) or stored.get(SCHEMA_KEY) != SCHEMA_VERSION:
        return None
    counts = [stored.get(key) for key in ("samples", "passed", "not_evaluated", "other_model")]
    figures = [stored.get(key) for key in ("check_score", "check_pass_rate", "cost_usd")]
    judge, basis = stored.get("judge"), stored.get("cost_basis")
    if not isinstance(judge, dict) or not (basis is None or isinstance(basis, str)):
        return None
    # A criterion without its mean reads as "" here: not a figure, so the codec reads it.
    means = {name: c.get("mean", "") if isinstance(c, dict) else "" for name, c in judge.items()}
    if not all(type(value) is int for value in counts) or not all(
        _figure(value) for value in [*figures, *means.values()]
    ):
        return None
    samples, passed, not_evaluated, other_model = cast(list[int], counts)
    return LineFigures(
        passed=passed,
        evaluated=samples - not_evaluated - other_model,
        check_score=_float(figures[0]),
        check_pass_rate=_float(figures[1]),
        judge={name: _float(mean) for name, mean in means.items()},
        cost_usd=_float(figures[2]),
        cost_basis=basis,
    )


def _figure(value: object) -> bool:
    """A stored figure: missing (``None``) or a finite number (never a boolean)."""
    return value is None or (type(value) in (int, float) and math.isfinite(cast(float, value)))


def _float(value: object) -> float | None:
    return None if value is None else float(cast(float, value))


def _compared(connection: Connection, row: RowMapping) -> tuple[int | None, dict[str, float]]:
    """The stored comparison's regression count and noise floors, read in the query.

    A comparison whose baseline part lacks its stored count (an older form) is read whole.
    """
    if row["compared"] != "object":
        return None, {}
    regressions, noise = row["regressions"], row["noise"]
    if regressions is None:
        return _compared_whole(connection, row)
    floors = json.loads(noise) if isinstance(noise, str) else noise
    if not isinstance(floors, dict | None) or not all(_figure(v) for v in (floors or {}).values()):
        return _compared_whole(connection, row)
    return int(regressions), {str(k): float(v) for k, v in (floors or {}).items() if v is not None}


def _compared_whole(connection: Connection, row: RowMapping) -> tuple[int | None, dict[str, float]]:
    stored = connection.execute(
        select(runs.c.comparison).where(runs.c.sequence == row["sequence"])
    ).scalar()
    try:
        found = read_comparison(stored)
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None
    compared = None if found is None else found.baseline
    if compared is None:
        return None, {}
    floor = compared.policy.noise_floor
    return compared.regression_count, {} if floor is None else dict(floor.metrics)


def _conditions(connection: Connection, where: RunFilter) -> list[Any]:
    found: list[Any] = []
    for column, value in (
        (runs.c.suite, where.suite),
        (runs.c.agent, where.agent),
        (runs.c.status, where.status),
    ):
        if value is not None:
            found.append(column == value)
    if where.started_from is not None:
        found.append(runs.c.started_at >= where.started_from)
    if where.started_before is not None:
        found.append(runs.c.started_at < where.started_before)
    if where.metadata is not None:
        found.append(_metadata_matches(connection, *where.metadata))
    beat = func.coalesce(runs.c.heartbeat_at, runs.c.started_at)
    if where.beat_before is not None:
        found.extend((runs.c.status == "running", beat < where.beat_before))
    if where.beat_from is not None:
        found.extend((runs.c.status == "running", beat >= where.beat_from))
    if where.model is not None:
        found.append(_has_model(connection, where.model))
    return found


def _number_in(value: str) -> float | None:
    """``value`` as a finite number, if it reads as one."""
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _metadata_matches(connection: Connection, key: str, value: str) -> Any:
    """The run's metadata holds ``key``: the string ``value``, or the number it reads as."""
    number = _number_in(value)
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        # jsonb equality compares numbers as numbers (7 = 7.0) and strings as strings.
        stored = func.cast(runs.c.metadata, JSONB).op("->")(literal(key, String()))
        wanted = [stored == func.cast(literal(json.dumps(value)), JSONB)]
        if number is not None:
            wanted.append(stored == func.cast(literal(json.dumps(number)), JSONB))
        return or_(*wanted)
    # SQLite: json_extract gives a stored number as a number and a string as text; the
    # path quotes the key, so that dots and brackets in it are part of the name.
    path = literal("$." + json.dumps(key), String())
    kind = func.json_type(runs.c.metadata, path)
    extracted = func.json_extract(runs.c.metadata, path)
    wanted = [and_(kind == "text", extracted == literal(value, String()))]
    if number is not None:
        wanted.append(and_(kind.in_(("integer", "real")), extracted == literal(number, Float())))
    return or_(*wanted)


def _has_model(connection: Connection, model: str) -> Any:
    """The run names ``model`` among its models (``settings.models``)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        listed = func.cast(runs.c.settings, JSONB)["models"]
        return listed.op("?")(literal(model))
    each = func.json_each(runs.c.settings, "$.models").table_valued("value")
    return exists(select(literal(1)).select_from(each).where(each.c.value == model))


def progress(connection: Connection, row: RowMapping) -> tuple[int, int]:
    """How many samples a run has stored, and how many it plans (cases × models × samples)."""
    sequence = row["sequence"]
    stored = select(func.count()).select_from(samples).where(samples.c.run == sequence)
    cases = select(func.count()).select_from(run_cases).where(run_cases.c.run == sequence)
    settings = _rows.settings_of(row)
    planned = int(connection.execute(cases).scalar_one()) * max(1, len(settings.models))
    return int(connection.execute(stored).scalar_one()), planned * settings.samples


def run_head(connection: Connection, row: RowMapping, heads: Heads | None = None) -> Run:
    """The run of ``row`` with its summary, numbered, without cases or samples."""
    cached = None if heads is None else heads.get(row["sequence"])
    if cached is not None:
        return cached
    run = replace(_rows.run_from(row), number=_reads.number_of(connection, row))
    if heads is not None and row["status"] == "completed":
        heads.keep(row["sequence"], run)
    return run


def run_case(
    connection: Connection,
    row: RowMapping,
    case_id: str,
    heads: Heads | None = None,
) -> Run | None:
    """The run of ``row`` holding one case's snapshot and samples; ``None`` when it has none."""
    sequence = row["sequence"]
    case_rows = connection.execute(
        select(run_cases).where(run_cases.c.run == sequence, run_cases.c.case_id == case_id)
    ).mappings()
    cases = tuple(_rows.case_from(r) for r in case_rows)
    found = _case_samples(connection, sequence, case_id)
    if not cases and not found:
        return None
    head = run_head(connection, row, heads)
    models = {label: rank for rank, label in enumerate(head.settings.models)}
    found.sort(key=lambda s: (models.get(s.model or "", -1), s.model or "", s.sample))
    return replace(head, cases=cases, samples=tuple(found))


def _case_samples(connection: Connection, sequence: int, case_id: str) -> list[SampleResult]:
    rows = (
        connection.execute(
            select(samples).where(samples.c.run == sequence, samples.c.case_id == case_id)
        )
        .mappings()
        .all()
    )
    by_sample: dict[str, list[MetricResult]] = defaultdict(list)
    if rows:
        query = (
            select(metrics)
            .where(metrics.c.sample.in_([r["id"] for r in rows]))
            .order_by(metrics.c.sample, metrics.c.position)
        )
        read_metric = _rows.MetricRows()
        for metric in connection.execute(query).mappings():
            by_sample[metric["sample"]].append(read_metric(metric))
    return [_rows.sample_from(r, by_sample.get(r["id"], ())) for r in rows]


def case_history(
    connection: Connection, *, suite: str, agent: str, case_id: str, before: int, limit: int
) -> list[CaseRun]:
    """The case's sample statuses in the latest ``limit`` runs of ``suite`` and ``agent``.

    Only runs up to sequence ``before`` (included) count; newest first.
    """
    recent = (
        select(runs.c.sequence)
        .where(runs.c.suite == suite, runs.c.agent == agent, runs.c.sequence <= before)
        .order_by(runs.c.sequence.desc())
        .limit(limit)
        .subquery()
    )
    query = (
        select(
            runs.c.sequence,
            runs.c.id,
            runs.c.suite,
            runs.c.started_at,
            run_cases.c.fingerprint,
            samples.c.status,
            func.count().label("count"),
        )
        .select_from(runs)
        .join(recent, recent.c.sequence == runs.c.sequence)
        .join(samples, and_(samples.c.run == runs.c.sequence, samples.c.case_id == case_id))
        .outerjoin(
            run_cases,
            and_(run_cases.c.run == runs.c.sequence, run_cases.c.case_id == case_id),
        )
        .group_by(
            runs.c.sequence,
            runs.c.id,
            runs.c.suite,
            runs.c.started_at,
            run_cases.c.fingerprint,
            samples.c.status,
        )
        .order_by(runs.c.sequence.desc())
    )
    found = connection.execute(query).mappings().all()
    numbers = _numbers(connection, [(suite, int(row["sequence"])) for row in found])
    grouped: dict[int, CaseRun] = {}
    for row in found:
        entry = grouped.get(row["sequence"])
        if entry is None:
            entry = grouped[row["sequence"]] = CaseRun(
                run_id=row["id"],
                number=int(numbers[row["sequence"]]),
                started_at=row["started_at"],
                fingerprint=row["fingerprint"],
                statuses={},
            )
        entry.statuses[row["status"]] = int(row["count"])
    return list(grouped.values())


def names(connection: Connection, known: dict[int, Names] | None = None) -> Names:
    """Every suite, agent and model label with a stored run, sorted.

    ``known`` keeps the last answer by the latest run's sequence: until a run is added, the
    names are the same.
    """
    latest = int(connection.execute(select(func.max(runs.c.sequence))).scalar() or 0)
    if known is not None and latest in known:
        return known[latest]
    pairs = connection.execute(select(runs.c.suite, runs.c.agent).distinct()).all()
    labels: set[str] = set()
    settings = connection.execute(
        select(runs.c.settings).order_by(runs.c.sequence.desc()).limit(500)
    ).scalars()
    for value in settings:
        listed = (value or {}).get("models") or []
        labels.update(str(label) for label in listed if isinstance(label, str))
    found = Names(
        suites=tuple(sorted({p[0] for p in pairs})),
        agents=tuple(sorted({p[1] for p in pairs})),
        models=tuple(sorted(labels)),
    )
    if known is not None:
        known.clear()
        known[latest] = found
    return found
