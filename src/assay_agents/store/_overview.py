"""A run's overview without loading the run: sample facts, faulted samples, cases a page at a time.

A run page shows the stored summary and comparison; what it reads of the samples besides is
counted here from the rows (one aggregate query, no sample decoded), and only the samples
with a fault (what to fix) and the cases of one page are read as records.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import (
    Connection,
    RowMapping,
    String,
    and_,
    case,
    false,
    func,
    literal,
    not_,
    select,
)

from assay_agents.agent.answered import MISMATCH_KEY
from assay_agents.errors import StoreError
from assay_agents.record import RecordError, read
from assay_agents.results import MetricResult, SampleResult, SampleStatus
from assay_agents.results.pacing import PACING_KEY, RunPacing, SamplePacing
from assay_agents.results.sample_facts import SampleFacts
from assay_agents.results.summary import CheckTally
from assay_agents.store import _rows
from assay_agents.store._tables import metrics, run_cases, samples
from assay_agents.store.browse import CasesPage, CaseTally, Heads, ModelTally, RunOverview, run_head


class Counted(NamedTuple):
    """What one aggregate query tells of a run's samples.

    ``unlisted`` says whether any sample is of a case the run kept no snapshot of;
    ``models`` are the models with samples in the order the report's matrix sets them.
    """

    facts: SampleFacts
    unlisted: bool
    models: tuple[str | None, ...]


def sample_facts(connection: Connection, row: RowMapping) -> Counted:
    """What a report reads of the run's samples beside its summary, counted in one query.

    The checks, estimated costs and paced samples per model are counted by the database;
    only samples that recorded rate-limit pacing (few, if any) are then read, for it. The
    same query finds each model's first case, which orders the matrix's columns.
    """
    sequence = row["sequence"]
    checks = (
        select(
            metrics.c.sample,
            func.sum(case((metrics.c.passed == false(), 1), else_=0)).label("failed"),
        )
        .join(samples, samples.c.id == metrics.c.sample)
        .where(samples.c.run == sequence, metrics.c.kind == "check")
        .group_by(metrics.c.sample)
        .subquery()
    )
    evaluated = and_(samples.c.status != "not_evaluated", not_(_has_key(connection, MISMATCH_KEY)))
    checked = checks.c.failed.is_not(None)
    errored = samples.c.error.is_not(None)

    def counted(*conditions: Any) -> Any:
        return func.sum(case((and_(*conditions), 1), else_=0))

    query = (
        select(
            samples.c.model,
            counted(evaluated, checked),
            counted(evaluated, checked, checks.c.failed == 0, not_(errored)),
            counted(evaluated, not_(checked), errored),
            counted(samples.c.cost_source == "estimated"),
            counted(_has_key(connection, PACING_KEY)),
            counted(run_cases.c.case_id.is_(None)),
            func.min(run_cases.c.position),
            func.min(case((run_cases.c.case_id.is_(None), samples.c.case_id), else_=None)),
        )
        .outerjoin(checks, checks.c.sample == samples.c.id)
        .outerjoin(
            run_cases,
            and_(run_cases.c.run == sequence, run_cases.c.case_id == samples.c.case_id),
        )
        .where(samples.c.run == sequence)
        .group_by(samples.c.model)
    )
    tallies: dict[str | None, CheckTally] = {}
    estimated: set[str | None] = set()
    firsts: dict[str | None, tuple[Any, ...]] = {}
    paced = unlisted = False
    for (
        model,
        checks_,
        passing,
        early,
        guessed,
        pacing,
        orphans,
        position,
        orphan,
    ) in connection.execute(query):
        label = _rows.model_value(str(model))
        tallies[label] = CheckTally(int(checks_), int(passing), int(early))
        if guessed:
            estimated.add(label)
        paced, unlisted = paced or bool(pacing), unlisted or bool(orphans)
        # Where the model's samples start in report order: snapshotted cases by position,
        # then the others by id (one case per position, so the position says which).
        firsts[label] = (0, int(position), "") if position is not None else (1, 0, str(orphan))
    facts = SampleFacts(
        checks=tallies,
        estimated=frozenset(estimated),
        pacing=_run_pacing(connection, row) if paced else None,
    )
    return Counted(facts, unlisted, _columns(firsts, _rows.settings_of(row).models))


def _columns(
    firsts: dict[str | None, tuple[Any, ...]], declared: Sequence[str]
) -> tuple[str | None, ...]:
    """The models in the order the whole run's samples first show them (the matrix's)."""
    ranks = {label: rank for rank, label in enumerate(declared)}

    def key(label: str | None) -> tuple[Any, ...]:
        rank = -1 if label is None else ranks.get(label, len(ranks))
        return (*firsts[label], rank, label or "")

    return tuple(sorted(firsts, key=key))


def _run_pacing(connection: Connection, row: RowMapping) -> RunPacing | None:
    """The run's pacing, read from the samples that recorded any, in the report's order."""
    query = select(
        samples.c.case_id,
        samples.c.model,
        samples.c.sample,
        _value_text(connection, PACING_KEY).label("pacing"),
    ).where(samples.c.run == row["sequence"], _has_key(connection, PACING_KEY))
    found = connection.execute(query).mappings().all()
    if not found:
        return None
    # Adjustments at the same instant keep the samples' order: the report's.
    order = _order(connection, row)
    ordered = sorted(found, key=lambda r: order(r["case_id"], r["model"], r["sample"]))
    return RunPacing.of(_pacing(r) for r in ordered)


def _pacing(row: RowMapping) -> SamplePacing | None:
    value = row["pacing"]
    try:
        if isinstance(value, str):
            value = json.loads(value)
        found = read(SamplePacing | None, value, "pacing")
    except (RecordError, ValueError) as error:
        raise StoreError(f"sample {row['case_id']!r} #{row['sample']}: stored {error}") from None
    return found if isinstance(found, SamplePacing) else None


def _has_key(connection: Connection, key: str) -> Any:
    """Whether a sample's metadata holds ``key`` (whatever its value)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        return func.cast(samples.c.metadata, JSONB).op("?", is_comparison=True)(
            literal(key, String())
        )
    path = literal("$." + json.dumps(key), String())
    return func.json_type(samples.c.metadata, path).is_not(None)


def _value_text(connection: Connection, key: str) -> Any:
    """The JSON text of ``key`` in a sample's metadata, NULL without it."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        return func.cast(samples.c.metadata, JSONB).op("->>")(literal(key, String()))
    path = literal("$." + json.dumps(key), String())
    return func.json_extract(samples.c.metadata, path)  # an object as its JSON text


def _order(connection: Connection, row: RowMapping) -> Any:
    """The report's sample order (as a whole run is loaded) as a key of row values."""
    positions = dict(
        connection.execute(
            select(run_cases.c.case_id, run_cases.c.position).where(
                run_cases.c.run == row["sequence"]
            )
        ).all()
    )
    ranks = {label: rank for rank, label in enumerate(_rows.settings_of(row).models)}
    unknown_case = max(positions.values(), default=0) + 1

    def key(case_id: str, model: str, index: int) -> tuple[Any, ...]:
        label = _rows.model_value(model)
        model_rank = -1 if label is None else ranks.get(label, len(ranks))
        return (positions.get(case_id, unknown_case), case_id, model_rank, model, index)

    return key


def faulted_samples(connection: Connection, row: RowMapping) -> list[SampleResult]:
    """The run's samples with a fault (what to fix reads only these), in the report's order."""
    sequence = row["sequence"]
    rows = (
        connection.execute(
            select(samples).where(samples.c.run == sequence, samples.c.fault.is_not(None))
        )
        .mappings()
        .all()
    )
    if not rows:
        return []
    by_sample: dict[str, list[MetricResult]] = defaultdict(list)
    query = (
        select(metrics)
        .join(samples, samples.c.id == metrics.c.sample)
        .where(samples.c.run == sequence, samples.c.fault.is_not(None))
        .order_by(metrics.c.sample, metrics.c.position)
    )
    read_metric = _rows.MetricRows()
    for metric in connection.execute(query).mappings():
        by_sample[metric["sample"]].append(read_metric(metric))
    found = [_rows.sample_from(r, by_sample.get(r["id"], ())) for r in rows]
    order = _order(connection, row)
    found.sort(key=lambda s: order(s.case_id, _rows.model_column(s.model), s.sample))
    return found


def cases_page(
    connection: Connection,
    row: RowMapping,
    *,
    offset: int,
    limit: int,
    unlisted: bool = True,
    models: tuple[str | None, ...] = (),
) -> CasesPage:
    """The run's cases from ``offset`` (in position order), each with its samples' statuses.

    Cases with samples but no snapshot follow the snapshotted ones, by id, as in a report;
    ``unlisted`` says there may be some (without, they are not looked for). Only the page's
    cases are read; their samples are counted per model, status and fault in one query.
    ``models`` (the matrix's columns) are handed on as they are.
    """
    sequence = row["sequence"]
    snapshotted = run_cases.c.run == sequence
    total = int(connection.execute(select(func.count()).where(snapshotted)).scalar_one())
    chosen: list[tuple[str, str]] = []
    if offset < total:
        page = (
            select(run_cases.c.case_id, run_cases.c.name)
            .where(snapshotted)
            .order_by(run_cases.c.position, run_cases.c.case_id)
            .offset(offset)
            .limit(limit)
        )
        chosen = [(str(c), str(n)) for c, n in connection.execute(page).all()]
    others: list[str] = []
    if unlisted:
        own = select(run_cases.c.case_id).where(
            snapshotted, run_cases.c.case_id == samples.c.case_id
        )
        found = connection.execute(
            select(samples.c.case_id)
            .where(samples.c.run == sequence, ~own.exists())
            .distinct()
            .order_by(samples.c.case_id)
        ).scalars()
        others = [str(case_id) for case_id in found]
    if len(chosen) < limit:
        start = max(0, offset - total)
        chosen += [(c, c) for c in others[start : start + limit - len(chosen)]]
    counted = _counted(connection, sequence, [c for c, _ in chosen]) if chosen else {}
    return CasesPage(
        cases=tuple(_case_tally(c, n, counted.get(c)) for c, n in chosen),
        offset=offset,
        total=total + len(others),
        models=models,
    )


@dataclass
class _Cell:
    """One case's samples on one model, counted from grouped rows."""

    samples: int = 0
    passed: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    #: Each fault: the lowest sample index showing it, and how many samples do.
    faults: dict[str, tuple[int, int]] = field(default_factory=dict)

    def add(self, status: str, fault: str | None, count: int, first: int) -> None:
        self.samples += count
        self.statuses[status] = self.statuses.get(status, 0) + count
        self.passed += count if status == SampleStatus.PASSED.value else 0
        if fault is not None:
            low, seen = self.faults.get(fault, (first, 0))
            self.faults[fault] = (min(low, first), seen + count)

    def tally(self) -> ModelTally:
        ordered = sorted(self.faults.items(), key=lambda item: item[1][0])
        return ModelTally(
            samples=self.samples,
            passed=self.passed,
            faults=tuple((fault, count) for fault, (_, count) in ordered),
        )


def _counted(
    connection: Connection, sequence: int, chosen: list[str]
) -> dict[str, dict[str | None, _Cell]]:
    """The chosen cases' samples per model, counted in one query.

    Grouped by case, model, status and fault; each group's lowest sample index orders the
    faults as the samples first show them.
    """
    query = (
        select(
            samples.c.case_id,
            samples.c.model,
            samples.c.status,
            samples.c.fault,
            func.count(),
            func.min(samples.c.sample),
        )
        .where(samples.c.run == sequence, samples.c.case_id.in_(chosen))
        .group_by(samples.c.case_id, samples.c.model, samples.c.status, samples.c.fault)
    )
    cells: dict[str, dict[str | None, _Cell]] = defaultdict(dict)
    for case_id, model, status, fault, count, first in connection.execute(query):
        cell = cells[str(case_id)].setdefault(_rows.model_value(str(model)), _Cell())
        cell.add(str(status), None if fault is None else str(fault), int(count), int(first))
    return cells


def _case_tally(case_id: str, name: str, cells: dict[str | None, _Cell] | None) -> CaseTally:
    statuses: dict[str, int] = defaultdict(int)
    for cell in (cells or {}).values():
        for status, count in cell.statuses.items():
            statuses[status] += count
    return CaseTally(
        case_id=case_id,
        name=name,
        statuses=dict(statuses),
        models={model: cell.tally() for model, cell in (cells or {}).items()},
    )


def overview(
    connection: Connection, row: RowMapping, *, offset: int, limit: int, heads: Heads | None
) -> RunOverview:
    """The run of ``row`` for its page: head, sample facts, faulted samples, one page of cases."""
    counted = sample_facts(connection, row)
    page = cases_page(
        connection,
        row,
        offset=offset,
        limit=limit,
        unlisted=counted.unlisted,
        models=counted.models,
    )
    return RunOverview(
        run=run_head(connection, row, heads),
        facts=counted.facts,
        faulted=tuple(faulted_samples(connection, row)),
        cases=page,
    )
