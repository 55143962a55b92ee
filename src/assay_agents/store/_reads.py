"""Read queries: resolving a run reference and loading a run whole."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, RowMapping, Select, func, or_, select, text

from assay_agents.errors import StoreError
from assay_agents.results import CaseSnapshot, GradedSample, MetricResult, Run, SampleResult
from assay_agents.results.release import REVISION_KEYS
from assay_agents.results.run import split_handle
from assay_agents.results.storable import INT64_MAX
from assay_agents.store import _rows
from assay_agents.store._tables import metrics, run_cases, runs, samples

#: A prefix shorter than this is too likely to match by accident.
MIN_PREFIX = 4
_MAX_CANDIDATES = 10


def resolve_exact(
    connection: Connection, run_id: str, *, lock: bool = False, exclusive: bool = False
) -> RowMapping:
    """Return the ``runs`` row of a full id; raise :class:`StoreError` when there is none.

    ``lock`` takes a shared row lock (where the database has row locks) until commit;
    ``exclusive`` an exclusive one, which waits for every writer holding a shared lock.
    """
    query = select(runs).where(runs.c.id == run_id)
    if exclusive:
        query = query.with_for_update()
    elif lock:
        query = query.with_for_update(read=True)
    row = connection.execute(query).mappings().first()
    if row is None:
        raise StoreError(f"no run {run_id!r}")
    return row


def number_column() -> ColumnElement[int]:
    """A run's number: its position in its suite's history, oldest first.

    Counted from the stored order (``sequence``), never stored itself, so every run ever
    written has one and no two runs of a suite share it.
    """
    earlier = runs.alias("earlier")
    return (
        select(func.count())
        .where(earlier.c.suite == runs.c.suite, earlier.c.sequence <= runs.c.sequence)
        .scalar_subquery()
        .label("number")
    )


def numbered(query: Select[Any]) -> Select[Any]:
    """``query`` over ``runs`` with each run's number as a ``number`` column."""
    return query.add_columns(number_column())


def number_of(connection: Connection, row: RowMapping | Mapping[str, Any]) -> int:
    """The number of the run of ``row`` (its ``suite`` and ``sequence``) in its suite's history."""
    if "number" in row:
        return int(row["number"])
    query = select(func.count()).where(
        runs.c.suite == row["suite"], runs.c.sequence <= row["sequence"]
    )
    return int(connection.execute(query).scalar_one())


def _by_number(connection: Connection, suite: str, number: int) -> RowMapping:
    query = select(runs).where(runs.c.suite == suite).order_by(runs.c.sequence)
    row = (
        connection.execute(query.offset(number - 1).limit(1)).mappings().first()
        if 1 <= number <= INT64_MAX  # past a 64-bit integer no run is numbered; no database
        else None  # would take it as an offset
    )
    if row is None:
        total = connection.execute(select(func.count()).where(runs.c.suite == suite)).scalar_one()
        raise StoreError(_no_number(suite, number, int(total)))
    return row


def _no_number(suite: str, number: int, total: int) -> str:
    if total == 0:
        return f"no run {suite}#{number}: no runs of suite {suite!r} are stored"
    return f"no run {suite}#{number}: suite {suite!r} has runs #1 to #{total}"


def resolve(connection: Connection, ref: str) -> RowMapping:
    """Return the ``runs`` row of a full id, ``suite#number`` or a unique prefix.

    Raise :class:`StoreError` when none (or more than one) matches.
    """
    exact = connection.execute(select(runs).where(runs.c.id == ref)).mappings().first()
    if exact is not None:
        return exact
    handle = split_handle(ref)
    if handle is not None:
        return _by_number(connection, *handle)
    if len(ref) < MIN_PREFIX:
        raise StoreError(f"no run {ref!r} (a prefix needs at least {MIN_PREFIX} characters)")
    query = (
        select(runs)
        .where(runs.c.id.startswith(ref, autoescape=True))
        .order_by(runs.c.sequence.desc())
        .limit(_MAX_CANDIDATES + 1)
    )
    found = connection.execute(query).mappings().all()
    if not found:
        raise StoreError(f"no run {ref!r}")
    if len(found) > 1:
        listed = ", ".join(row["id"] for row in found[:_MAX_CANDIDATES])
        more = ", …" if len(found) > _MAX_CANDIDATES else ""
        raise StoreError(f"run prefix {ref!r} is ambiguous: it matches {listed}{more}")
    return found[0]


def full_run(connection: Connection, row: RowMapping) -> Run:
    """Load the run of ``row`` with its cases and samples (with metrics) in report order."""
    sequence = row["sequence"]
    cases = _cases(connection, row)
    try:
        loaded = _samples(connection, sequence)
    except StoreError as error:
        raise StoreError(f"run {row['id']}: {error}") from None
    run = _rows.run_from(row, cases)  # its stored records read as stored, first
    positions = {case.case_id: case.position for case in cases}
    loaded.sort(key=_sample_order(positions, run.settings.models))
    return replace(_rows.run_from(row, cases, loaded), number=number_of(connection, row))


def run_with_cases(
    connection: Connection, row: RowMapping, alike: Sequence[CaseSnapshot] = ()
) -> Run:
    """Load the run of ``row`` with its cases, without its samples (its summary as stored).

    A case defined exactly as one of ``alike`` (same id, same fingerprint, equal definition)
    shares that one's definition: a baseline read to compare with a run of 100,000 unchanged
    cases would otherwise hold a second copy of each definition through the whole run. Each
    stored definition is still read, and a damaged one refused.
    """
    shared = {case.case_id: case for case in alike}
    cases = _cases(connection, row, shared)
    return replace(_rows.run_from(row, cases), number=number_of(connection, row))


def graded_pages(
    connection: Connection, row: RowMapping, size: int
) -> Iterator[list[GradedSample]]:
    """How each sample of the run of ``row`` was graded, in pages (as :func:`sample_pages`)."""
    return _pages(connection, row, size, _graded)


def _graded(
    connection: Connection, sequence: int, where: ColumnElement[bool] | None = None
) -> list[GradedSample]:
    by_sample = _metrics(connection, sequence, where)
    graded = (samples.c[name] for name in ("id", "case_id", "model", "sample", "status", "error"))
    query = select(*graded).where(samples.c.run == sequence)
    if where is not None:
        query = query.where(where)
    return [
        _rows.graded_from(r, by_sample.get(r["id"], ()))
        for r in connection.execute(query).mappings()
    ]


def _cases(
    connection: Connection, row: RowMapping, alike: Mapping[str, CaseSnapshot] | None = None
) -> list[CaseSnapshot]:
    """The cases of the run of ``row``, in position order; one that does not read names it."""
    query = select(run_cases).where(run_cases.c.run == row["sequence"])
    shared = alike or {}
    try:
        return sorted(
            (
                _rows.case_from(r, shared.get(r["case_id"]))
                for r in connection.execute(query).mappings()
            ),
            key=lambda case: (case.position, case.case_id),
        )
    except StoreError as error:
        raise StoreError(f"run {row['id']}: {error}") from None


def sample_pages(
    connection: Connection, row: RowMapping, size: int
) -> Iterator[list[SampleResult]]:
    """The run's samples in report order, a page of about ``size`` samples at a time.

    A page holds whole cases (every model and sample of each), so a caller that folds the
    pages (a summary) never holds more than one in memory.
    """
    return _pages(connection, row, size, _samples)


S = TypeVar("S", SampleResult, GradedSample)


def _pages(
    connection: Connection,
    row: RowMapping,
    size: int,
    read: Callable[[Connection, int, ColumnElement[bool] | None], list[S]],
) -> Iterator[list[S]]:
    """Pages of about ``size`` samples of the run of ``row``, each read by ``read``."""
    sequence = row["sequence"]
    settings = _rows.settings_of(row)
    per_case = max(1, len(settings.models)) * max(1, settings.samples)
    chunk = max(1, min(_MAX_CASES_PER_PAGE, size // per_case))
    ordered = select(run_cases.c.case_id, run_cases.c.position).where(run_cases.c.run == sequence)
    cases = sorted(
        ((case_id, position) for case_id, position in connection.execute(ordered)),
        key=lambda each: (each[1], each[0]),
    )
    try:
        for start in range(0, len(cases), chunk):
            positions = dict(cases[start : start + chunk])
            page = read(connection, sequence, samples.c.case_id.in_(positions))
            page.sort(key=_sample_order(positions, settings.models))
            yield page
        undeclared = samples.c.case_id.not_in(
            select(run_cases.c.case_id).where(run_cases.c.run == sequence)
        )
        rest = read(connection, sequence, undeclared)
        if rest:
            rest.sort(key=_sample_order({}, settings.models))
            yield rest
    except StoreError as error:
        raise StoreError(f"run {row['id']}: {error}") from None


#: Cases per page: an ``IN`` list every database takes.
_MAX_CASES_PER_PAGE = 500


def _samples(
    connection: Connection, sequence: int, where: ColumnElement[bool] | None = None
) -> list[SampleResult]:
    by_sample = _metrics(connection, sequence, where)
    query = select(samples).where(samples.c.run == sequence)
    if where is not None:
        query = query.where(where)
    return [
        _rows.sample_from(row, by_sample.get(row["id"], ()))
        for row in connection.execute(query).mappings()
    ]


def _metrics(
    connection: Connection, sequence: int, where: ColumnElement[bool] | None = None
) -> dict[str, list[MetricResult]]:
    query = (
        select(metrics)
        .join(samples, samples.c.id == metrics.c.sample)
        .where(samples.c.run == sequence)
        .order_by(metrics.c.sample, metrics.c.position)
    )
    if where is not None:
        query = query.where(where)
    grouped: dict[str, list[MetricResult]] = defaultdict(list)
    read_metric = _rows.MetricRows()
    for row in connection.execute(query).mappings():
        grouped[row["sample"]].append(read_metric(row))
    return grouped


def _sample_order(
    positions: Mapping[str, int], models: Sequence[str]
) -> Callable[[SampleResult | GradedSample], tuple[Any, ...]]:
    """Case position, then model in the run's model order (no model first), then index."""
    ranks = {label: rank for rank, label in enumerate(models)}
    # Anything the run did not declare sorts after what it did, by name: stable, never lost.
    unknown_case = max(positions.values(), default=0) + 1

    def key(sample: SampleResult | GradedSample) -> tuple[Any, ...]:
        model_rank = -1 if sample.model is None else ranks.get(sample.model, len(ranks))
        return (
            positions.get(sample.case_id, unknown_case),
            sample.case_id,
            model_rank,
            sample.model or "",
            sample.sample,
        )

    return key


#: How a row of each table with JSON columns leads to its run.
_RUN_OF = {
    "runs": "runs AS t JOIN runs ON runs.sequence = t.sequence",
    "run_cases": "run_cases AS t JOIN runs ON runs.sequence = t.run",
    "samples": "samples AS t JOIN runs ON runs.sequence = t.run",
    "metrics": "metrics AS t JOIN samples ON samples.id = t.sample "
    "JOIN runs ON runs.sequence = samples.run",
}


def run_with_malformed_json(connection: Connection, table: str, column: str) -> str | None:
    """The id of a run holding text that is not JSON in ``table.column`` (SQLite only).

    PostgreSQL's ``jsonb`` cannot hold such text; elsewhere, or for a table this does not
    know, ``None``. The names are the schema's own, never a user's.
    """
    joined = _RUN_OF.get(table)
    if joined is None or connection.dialect.name != "sqlite" or not column.isidentifier():
        return None
    where = f"t.{column} IS NOT NULL AND json_valid(t.{column}) = 0"
    query = text(f"SELECT runs.id FROM {joined} WHERE {where} ORDER BY runs.sequence LIMIT 1")
    found = connection.execute(query).scalar()
    return None if found is None else str(found)


def of_release(revision: str | None, label: str | None) -> list[ColumnElement[bool]]:
    """Conditions keeping the runs of a release, as ``release_matches`` decides it.

    The revision is a prefix in any case, of the release's or of one the metadata names.
    """
    conditions: list[ColumnElement[bool]] = []
    if label is not None:
        conditions.append(runs.c.settings[("release", "label")].as_string() == label)
    if revision is not None:
        prefix = revision.lower()
        named = [runs.c.settings[("release", "revision")].as_string()]
        named += [runs.c.metadata[key].as_string() for key in REVISION_KEYS]
        conditions.append(
            or_(*(func.lower(each).startswith(prefix, autoescape=True) for each in named))
        )
    return conditions
