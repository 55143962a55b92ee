"""Histories the dashboard tests read: real runs of real suites, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.store import Store
from hostile import CONTROLS, MARKUP

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_eval.py"
#: Text that must reach every page as characters, never as markup or terminal controls.
HOSTILE = " ".join([*MARKUP.values(), CONTROLS["rlo"], CONTROLS["osc_title"]])


@dataclass(frozen=True)
class History:
    """A database with two runs of the support example (the second regressed) and one
    run of a suite whose every string is hostile."""

    url: str
    reference: assay.Run
    regressed: assay.Run
    hostile: assay.Run


def _hostile_suite() -> assay.Suite:
    suite = assay.Suite(
        f"Hostile {MARKUP['script']}",
        agent=lambda text, ctx: f"answer {HOSTILE}",
    )
    suite.case(
        f"question {HOSTILE}",
        id="hostile-case",
        name=f"name {MARKUP['img_onerror']}",
        expected=f"reference {HOSTILE}",
        checks=[assay.checks.contains("answer")],
    )
    return suite


def make_history(url: str, monkeypatch: pytest.MonkeyPatch) -> History:
    Store.open(url, migrate=True, create=True).close()
    monkeypatch.delenv("AGENT_REVISION", raising=False)
    reference = assay.run(EXAMPLE, db=url, progress=False, metadata={"revision": "ref-1"})
    monkeypatch.setenv("AGENT_REVISION", "regressed")
    regressed = assay.run(EXAMPLE, db=url, progress=False, metadata={"revision": "bad-2"})
    monkeypatch.delenv("AGENT_REVISION", raising=False)
    hostile = assay.run(
        _hostile_suite(), db=url, progress=False, metadata={"revision": MARKUP["script"]}
    )
    return History(url, reference, regressed, hostile)


#: Two models named with hostile text, for a run read as a case × model matrix.
MATRIX_MODELS = (f"model {MARKUP['script']}", f"other {CONTROLS['rlo']}")


def _matrix_agent(text: str, ctx: assay.AgentContext) -> str:
    """Passes, fails on the second model, errs once there, as each case's input asks."""
    model = None if ctx.model is None else ctx.model.label
    if text == "err once" and model == MATRIX_MODELS[1] and ctx.sample == 1:
        raise ValueError("boom")
    if text == "fail" and model == MATRIX_MODELS[1]:
        return "nothing"
    return "answer"


def make_matrix_run(url: str) -> assay.Run:
    """A completed run of two models, three samples each, in a history of its own: passes,
    failures, an error and unevaluated samples (a case with nothing to check), hostile
    model names and case ids."""
    Store.open(url, migrate=True, create=True).close()
    suite = assay.Suite("Matrix", agent=_matrix_agent, samples=3)
    checks = [assay.checks.contains("answer")]
    suite.case("fail", id=f"case {MARKUP['img_onerror']} {CONTROLS['rlo']}", checks=checks)
    suite.case("err once", id="errs", name=f"errs {MARKUP['script']}", checks=checks)
    suite.case("nothing to check", id="unchecked")
    return assay.run(suite, db=url, models=list(MATRIX_MODELS), progress=False)


@pytest.fixture(scope="module")
def matrix_history(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, assay.Run]:
    """The database of :func:`make_matrix_run` (SQLite) and its run."""
    folder = tmp_path_factory.mktemp("matrix")
    url = f"sqlite:///{folder / 'history.db'}"
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(folder)
        return url, make_matrix_run(url)


@pytest.fixture(scope="module")
def sqlite_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    folder = tmp_path_factory.mktemp("dashboard")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(folder)
        yield make_history(f"sqlite:///{folder / 'history.db'}", monkeypatch)


@pytest.fixture(scope="module")
def postgres_history(
    postgres_server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[History]:
    import uuid

    import psycopg
    from sqlalchemy.engine import make_url

    name = f"dashboard_{uuid.uuid4().hex[:12]}"
    server = make_url(postgres_server_url)
    libpq = server.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    folder = tmp_path_factory.mktemp("dashboard-pg")
    url = server.set(database=name).render_as_string(hide_password=False)
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.chdir(folder)
            yield make_history(url, monkeypatch)
    finally:
        with psycopg.connect(libpq, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def history(request: pytest.FixtureRequest) -> History:
    return request.getfixturevalue(f"{request.param}_history")


@pytest.fixture(autouse=True)
def _no_dashboard_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_DASHBOARD_TOKEN", raising=False)
    os.environ.pop("ASSAY_DATABASE_URL", None)
