"""Upgrading a database written at revision 0001: every row kept, open runs resumable.

The old rows are written with SQLAlchemy Core against the 0001 schema as that revision
created it (no lease or error columns), not through today's store.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    DateTime,
    Engine,
    Float,
    Integer,
    String,
    Text,
    column,
    create_engine,
    insert,
    table,
    text,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from store_builders import CASES, T0, later
from typer.testing import CliRunner

from assay_agents.agent import Action, Observation, Usage
from assay_agents.cli.app import app
from assay_agents.errors import ConfigurationError, LeaseError, ReadOnlyRunError
from assay_agents.record import read_settings, write_summary
from assay_agents.results import (
    JudgeUsage,
    MetricResult,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    SampleStatus,
    Vote,
    summarise,
)
from assay_agents.results.run import Lease
from assay_agents.store import Store, _migrate
from assay_agents.store._tables import VERSION_TABLE

# The 0001 schema's columns, spelled out (frozen like the migration itself).
_JSON = JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
_TIME = DateTime(timezone=True)
OLD_RUNS = table(
    "runs",
    column("sequence", Integer),
    column("id", String),
    column("suite", String),
    column("suite_version", String),
    column("agent", String),
    column("fingerprint", String),
    column("status", String),
    column("started_at", _TIME),
    column("finished_at", _TIME),
    column("settings", _JSON),
    column("metadata", _JSON),
    column("summary", _JSON),
    column("comparison", _JSON),
    column("baseline_id", String),
    column("links", _JSON),
)
OLD_CASES = table(
    "run_cases",
    column("run", Integer),
    column("case_id", String),
    column("name", Text),
    column("position", Integer),
    column("fingerprint", String),
    column("definition", _JSON),
)
OLD_SAMPLES = table(
    "samples",
    column("id", String),
    column("run", Integer),
    column("case_id", String),
    column("model", String),
    column("sample", Integer),
    column("status", String),
    column("answer", Text),
    column("actions", _JSON),
    column("observation", _JSON),
    column("input_tokens", Integer),
    column("output_tokens", Integer),
    column("cost_usd", Float),
    column("cost_source", String),
    column("duration_ms", Float),
    column("error", Text),
    column("metadata", _JSON),
    column("fault", String),
    column("recommendation", Text),
    column("judge_usage", _JSON),
    column("created_at", _TIME),
)
OLD_METRICS = table(
    "metrics",
    column("sample", String),
    column("position", Integer),
    column("name", String),
    column("kind", String),
    column("category", String),
    column("threshold", Float),
    column("score", Float),
    column("passed", Boolean),
    column("reason", Text),
    column("error", Text),
    column("votes", _JSON),
)

TABLES = ("runs", "run_cases", "samples", "metrics")
ORDER = {
    "runs": "sequence",
    "run_cases": "run, case_id",
    "samples": "id",
    "metrics": "sample, position",
}
NEW_RUN_COLUMNS = {
    "owner_host",
    "owner_pid",
    "owner_token",
    "heartbeat_at",
    "owner_started",
    "error",
    "verdict",
    "judge_usage",
    "outcome",
    "baseline_choice",
    "traces",
}
NEW_SAMPLE_COLUMNS = {"traces"}
SETTINGS: dict[str, Any] = {
    "samples": 1,
    "models": ["gpt-4o", "claude"],
    "judge": "j-1",
    "concurrency": 4,
}

# The completed run's samples as the domain knows them; written below as 0001 rows.
CHECK = MetricResult(
    name="contains",
    kind="check",
    category="content",
    threshold=0.5,
    score=1.0,
    passed=True,
    reason="found it",
)
JUDGED = MetricResult(
    name="tone",
    kind="judge",
    category="quality",
    threshold=0.7,
    score=0.5,
    passed=False,
    reason="curt",
    votes=(Vote(score=0.5, reason="curt"), Vote(error="x")),
)
SAMPLES = (
    SampleResult(
        "refund",
        "gpt-4o",
        0,
        SampleStatus.PASSED,
        answer="Refunded ✓",
        actions=(Action("refund", {"id": 42}, group="billing", result={"ok": True}),),
        observation=Observation({"commands": [{"type": "Refund"}]}, truncated=True),
        usage=Usage(120, 30, 0.0015, "reported"),
        duration_ms=812.5,
        metadata={"trace": "t-1"},
        metrics=(CHECK,),
        # As the first release wrote it: no attempts, no cost basis (see _sample_row).
        judge_usage=JudgeUsage(input_tokens=10, source="unpriced"),
    ),
    SampleResult(
        "refund",
        "claude",
        0,
        SampleStatus.ERROR,
        error="agent raised: boom",
        usage=Usage(None, None, None, "unpriced"),
    ),
    SampleResult("cancel", "gpt-4o", 0, SampleStatus.NOT_EVALUATED, answer="Cancelled", actions=()),
    SampleResult(
        "cancel", "claude", 0, SampleStatus.FAILED, answer="no", actions=(), metrics=(CHECK, JUDGED)
    ),
)


def _sample_row(run: int, number: int, value: SampleResult) -> dict[str, Any]:
    usage = value.usage or Usage()
    return {
        "id": f"s{run:04d}{number:04d}",
        "run": run,
        "case_id": value.case_id,
        "model": value.model or "",
        "sample": value.sample,
        "status": value.status.value,
        "answer": value.answer,
        "actions": None
        if value.actions is None
        else [
            {
                "group": a.group,
                "name": a.name,
                "arguments": a.arguments,
                "result": a.result,
                "error": a.error,
                "result_bytes": a.result_bytes,
            }
            for a in value.actions
        ],
        "observation": None
        if value.observation is None
        else {"channels": value.observation.channels, "truncated": value.observation.truncated},
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "cost_source": usage.cost_source,
        "duration_ms": value.duration_ms,
        "error": value.error,
        "metadata": value.metadata,
        "fault": None,
        "recommendation": None,
        "judge_usage": None
        if value.judge_usage is None
        else {"input_tokens": value.judge_usage.input_tokens},
        "created_at": later(2),
    }


def _metric_rows(sample_id: str, value: SampleResult) -> list[dict[str, Any]]:
    return [
        {
            "sample": sample_id,
            "position": position,
            "name": m.name,
            "kind": m.kind,
            "category": m.category,
            "threshold": m.threshold,
            "score": m.score,
            "passed": m.passed,
            "reason": m.reason,
            "error": m.error,
            "votes": None if m.votes is None else [_first_vote_form(v) for v in m.votes],
        }
        for position, m in enumerate(value.metrics)
    ]


def _first_vote_form(vote: Vote) -> dict[str, Any]:
    # A failed vote once kept its null score.
    if vote.score is None:
        return {"score": None, "error": vote.error}
    return {"score": vote.score, "reason": vote.reason}


def _insert_run(
    connection: Connection, run_id: str, started_at: datetime, settings: dict[str, Any], cases: int
) -> int:
    inserted = connection.execute(
        insert(OLD_RUNS)
        .values(
            id=run_id,
            suite="support",
            suite_version="3",
            agent="bot",
            fingerprint="suite-fp-1",
            status="running",
            started_at=started_at,
            settings=settings,
            metadata={"branch": "main"},
            links={},
        )
        .returning(OLD_RUNS.c.sequence)
    )
    sequence = int(inserted.scalar_one())
    connection.execute(
        insert(OLD_CASES),
        [
            {
                "run": sequence,
                "case_id": case.case_id,
                "name": case.name,
                "position": case.position,
                "fingerprint": case.fingerprint,
                "definition": case.definition,
            }
            for case in CASES[:cases]
        ],
    )
    return sequence


def _write_0001_history(engine: Engine, running_started: datetime) -> dict[str, int]:
    """A completed run (cases, samples, metrics), an interrupted and a running one."""
    with engine.begin() as connection:
        completed = _insert_run(connection, "old-completed", T0, SETTINGS, 2)
        rows = [_sample_row(completed, number, value) for number, value in enumerate(SAMPLES)]
        connection.execute(insert(OLD_SAMPLES), rows)
        connection.execute(
            insert(OLD_METRICS),
            [
                metric
                for row, value in zip(rows, SAMPLES, strict=True)
                for metric in _metric_rows(row["id"], value)
            ],
        )
        # Completed last, as the 0001 store did: its rows were written while it was open.
        connection.execute(
            update(OLD_RUNS)
            .where(OLD_RUNS.c.sequence == completed)
            .values(
                status="completed",
                finished_at=later(5),
                summary=write_summary(summarise(SAMPLES)),
                comparison={"changes": [{"case": "refund"}]},
                baseline_id="b-0",
                links={"control": {"pair": ["a", "old-completed"], "role": "second"}},
            )
        )

        interrupted = _insert_run(connection, "old-interrupted", later(6), SETTINGS, 1)
        row = _sample_row(interrupted, 0, SAMPLES[0])
        connection.execute(insert(OLD_SAMPLES), [row])
        connection.execute(insert(OLD_METRICS), _metric_rows(row["id"], SAMPLES[0]))
        connection.execute(
            update(OLD_RUNS)
            .where(OLD_RUNS.c.sequence == interrupted)
            .values(status="interrupted", finished_at=later(7))
        )

        running = _insert_run(
            connection, "old-running", running_started, {"samples": 1, "models": ["gpt-4o"]}, 1
        )
    return {"completed": completed, "interrupted": interrupted, "running": running}


def _expected(sequences: dict[str, int], running_started: datetime) -> dict[str, Run]:
    common: dict[str, Any] = {
        "suite": "support",
        "suite_version": "3",
        "agent": "bot",
        "fingerprint": "suite-fp-1",
        "metadata": {"branch": "main"},
    }
    return {
        "completed": Run(
            id="old-completed",
            status=RunStatus.COMPLETED,
            started_at=T0,
            sequence=sequences["completed"],
            finished_at=later(5),
            settings=read_settings(SETTINGS),
            cases=CASES,
            samples=SAMPLES,
            summary=summarise(SAMPLES),
            # The first release's flat list of changes is kept as stored, and reads as none.
            comparison=None,
            baseline_id="b-0",
            links={"control": {"pair": ["a", "old-completed"], "role": "second"}},
            **common,
        ),
        "interrupted": Run(
            id="old-interrupted",
            status=RunStatus.INTERRUPTED,
            started_at=later(6),
            sequence=sequences["interrupted"],
            finished_at=later(7),
            settings=read_settings(SETTINGS),
            cases=CASES[:1],
            samples=SAMPLES[:1],
            **common,
        ),
        "running": Run(
            id="old-running",
            status=RunStatus.RUNNING,
            started_at=running_started,
            sequence=sequences["running"],
            settings=RunSettings(samples=1, models=("gpt-4o",)),
            cases=CASES[:1],
            **common,
        ),
    }


def _dump(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as connection:
        return {
            name: [
                dict(row)
                for row in connection.execute(
                    text(f"SELECT * FROM {name} ORDER BY {ORDER[name]}")
                ).mappings()
            ]
            for name in TABLES
        }


@pytest.fixture
def engine_at_0001(store_url: str) -> Iterator[Engine]:
    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "0001")
        yield engine
    finally:
        engine.dispose()


def test_upgrading_from_0001_keeps_every_row_and_resumes_open_runs(
    store_url: str, engine_at_0001: Engine
) -> None:
    engine = engine_at_0001
    running_started = datetime.now(UTC) - timedelta(hours=2)
    sequences = _write_0001_history(engine, running_started)
    before = _dump(engine)
    assert _migrate.state(engine) is _migrate.SchemaState.OUTDATED
    with pytest.raises(ConfigurationError, match="outdated Assay schema"):
        Store.open(store_url)

    with Store.open(store_url, migrate=True) as store:
        after = _dump(engine)
        assert after["runs"] == [
            {**row, **dict.fromkeys(NEW_RUN_COLUMNS)} for row in before["runs"]
        ]
        assert after["samples"] == [
            {**row, **dict.fromkeys(NEW_SAMPLE_COLUMNS)} for row in before["samples"]
        ]
        assert {name: after[name] for name in ("run_cases", "metrics")} == {
            name: before[name] for name in ("run_cases", "metrics")
        }

        expected = _expected(sequences, running_started)
        for name, run in expected.items():
            loaded = store.get_run(run.id)
            # History written before runs were numbered is numbered by its stored order.
            assert loaded.number is not None, name
            assert replace(loaded, number=None) == run, name
        # Its samples failed and errored: it is never an automatic baseline.
        assert store.find_baseline(expected["running"]) is None

        # The completed run is still read-only, in the store and in the database.
        owner = Lease(host="host-b", pid=2222, token="token-b")
        with pytest.raises(ReadOnlyRunError):
            store.claim("old-completed", owner, lease_timeout=0, owner_alive=lambda _: False)
        with pytest.raises(ReadOnlyRunError):
            store.save_samples("old-completed", [SAMPLES[0]])
        with pytest.raises(DBAPIError, match="read-only"), engine.begin() as connection:
            connection.execute(
                text("UPDATE samples SET answer = 'forged' WHERE run = :seq"),
                {"seq": sequences["completed"]},
            )

        # No lease was recorded: a running run is judged by how long ago it started.
        with pytest.raises(LeaseError, match="once it has run for"):
            store.claim("old-running", owner, lease_timeout=3 * 3600, owner_alive=lambda _: False)
        claimed = store.claim("old-running", owner, lease_timeout=3600, owner_alive=lambda _: True)
        assert claimed.status is RunStatus.RUNNING and claimed.lease is not None
        assert (claimed.lease.host, claimed.lease.pid, claimed.lease.token) == (
            "host-b",
            2222,
            "token-b",
        )
        store.save_samples("old-running", [SAMPLES[0]], token=owner.token)
        done = store.complete_run(
            "old-running", summary=summarise(SAMPLES[:1]), finished_at=later(9), token=owner.token
        )
        assert done is not None and done.status is RunStatus.COMPLETED

        resumed = store.claim(
            "old-interrupted", owner, lease_timeout=3600, owner_alive=lambda _: True
        )
        assert resumed.samples == SAMPLES[:1] and resumed.status is RunStatus.RUNNING
        assert replace(store.get_run("old-completed"), number=None) == expected["completed"]

    assert _migrate.state(engine) is _migrate.SchemaState.CURRENT
    with engine.connect() as connection:
        version = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
        assert (
            version.scalar_one()
            == ScriptDirectory.from_config(_migrate._config()).get_current_head()
        )
    Store.open(store_url).close()  # no migration needed any more
    migrated = CliRunner().invoke(app, ["db", "migrate", "--db", store_url])
    assert migrated.exit_code == 0, migrated.output
    assert "is up to date" in migrated.output and "nothing changed" in migrated.output
    assert _dump(engine)["runs"][0] == after["runs"][0]  # the completed run, untouched


@pytest.mark.postgres
def test_upgraded_postgres_refuses_truncate_of_existing_history(postgres_url: str) -> None:
    engine = create_engine(postgres_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "0001")
        sequences = _write_0001_history(engine, datetime.now(UTC))
        Store.open(postgres_url, migrate=True).close()
        with pytest.raises(DBAPIError, match=r"read-only \(TRUNCATE"), engine.begin() as connection:
            connection.execute(text("TRUNCATE runs CASCADE"))
        with engine.connect() as connection:
            count = connection.execute(
                text("SELECT count(*) FROM samples WHERE run = :seq"),
                {"seq": sequences["completed"]},
            ).scalar_one()
        assert count == len(SAMPLES)
    finally:
        engine.dispose()


def test_upgrading_from_0004_guards_completed_runs_against_replacement(store_url: str) -> None:
    from store_builders import make_single_run, sample

    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "head")
        old = Store(store_url, engine)
        run = old.create_run(make_single_run())
        old.save_samples(run.id, [sample()])
        completed = old.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))
        # Back to 0004's schema, with the run as a store of that revision had written it.
        with engine.begin() as connection:
            command.downgrade(_migrate._config(connection), "0004")
        migrated = CliRunner().invoke(app, ["db", "migrate", "--db", store_url])
        assert migrated.exit_code == 0, migrated.output
        assert _migrate.state(engine) is _migrate.SchemaState.CURRENT
        replace = (
            "REPLACE INTO runs (sequence, id, suite, agent, fingerprint, status, "
            "started_at, settings, metadata, links) SELECT sequence, id, 'forged', "
            "agent, fingerprint, 'running', started_at, settings, metadata, links "
            "FROM runs WHERE id = :id"
        )
        if engine.dialect.name == "postgresql":
            replace = (
                "INSERT INTO runs (id, suite, agent, fingerprint, status, started_at, "
                "settings, metadata, links) SELECT id, suite, agent, fingerprint, "
                "status, started_at, settings, metadata, links FROM runs WHERE id = "
                ":id ON CONFLICT (id) DO UPDATE SET suite = 'forged'"
            )
        with pytest.raises(DBAPIError, match="read-only"), engine.begin() as connection:
            connection.execute(text(replace), {"id": run.id})
        with Store.open(store_url) as store:
            assert store.get_run(run.id) == completed
    finally:
        engine.dispose()


def test_upgrading_from_0007_adds_the_call_cache_and_keeps_every_run(store_url: str) -> None:
    from store_builders import make_single_run, sample

    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "head")
        old = Store(store_url, engine)
        run = old.create_run(make_single_run())
        old.save_samples(run.id, [sample()])
        completed = old.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))
        # Back to 0007's schema, as a store of that revision had written it: no cache table.
        with engine.begin() as connection:
            command.downgrade(_migrate._config(connection), "0007")
        assert _migrate.state(engine) is _migrate.SchemaState.OUTDATED
        before = _dump(engine)
        with engine.connect() as connection:
            tables = connection.dialect.get_table_names(connection)
        assert "call_cache" not in tables

        migrated = CliRunner().invoke(app, ["db", "migrate", "--db", store_url])
        assert migrated.exit_code == 0, migrated.output
        assert _migrate.state(engine) is _migrate.SchemaState.CURRENT
        assert _dump(engine) == before
        with Store.open(store_url) as store:
            assert store.get_run(run.id) == completed
            assert store.cache_stats() == []
            store.cache_put("k" * 64, {"text": "kept"}, kind="judge", source="j @ host")
            # A key already kept keeps its first reply (two runs may race to keep one).
            store.cache_put("k" * 64, {"text": "other"}, kind="judge", source="j @ host")
            assert store.cache_get("k" * 64) == {"text": "kept"}
            assert [(s.kind, s.source, s.entries) for s in store.cache_stats()] == [
                ("judge", "j @ host", 1)
            ]
            assert store.cache_clear(source="someone else") == 0
            assert store.cache_clear() == 1 and store.cache_get("k" * 64) is None
    finally:
        engine.dispose()
