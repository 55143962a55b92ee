"""Shared fixtures: a throwaway PostgreSQL server, fresh databases, and stores on both backends."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from assay_agents.store import Store
from commandline import restored_process_state


@pytest.fixture(autouse=True)
def _isolated_interpreter() -> Iterator[None]:
    """Each test starts as the one before it found the interpreter.

    A suite or a project a test runs in this process leaves its folder on ``sys.path`` and
    its modules in ``sys.modules``; another test's project may hold modules of the same names
    (``agent.py``), which must not be the ones already imported.
    """
    with restored_process_state():
        yield


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[pytest.CollectReport]:
    """A test module's rewritten code is cached even where the machine turns bytecode off.

    pytest rewrites each test module's asserts on import and caches the result beside it,
    unless ``PYTHONDONTWRITEBYTECODE`` is set: then every test process (one per xdist worker)
    rewrites all of them again, on every run. Only while a test module is collected is the
    cache written; the projects the tests write and import stay free of ``__pycache__``.
    """
    if not isinstance(collector, pytest.Module) or not sys.dont_write_bytecode:
        return (yield)
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = True


def _pg_binary(name: str) -> str | None:
    """The newest /usr/lib/postgresql/<version>/bin/<name>, else one on PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=_major_version)
    return found[-1] if found else shutil.which(name)


def _major_version(path: str) -> int:
    version = Path(path).parents[1].name  # /usr/lib/postgresql/<version>/bin/<name>
    return int(version) if version.isdigit() else 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_postgres(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; the test container runs as root.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )


def _unavailable(reason: str) -> None:
    # A missing server is loud everywhere, never a silently skipped backend: the PostgreSQL
    # tests are left out only by asking for it.
    pytest.fail(
        f"PostgreSQL tests cannot run: {reason}. Install PostgreSQL (initdb, pg_ctl), "
        "set ASSAY_TEST_DATABASE_URL, or leave them out with -m 'not postgres'.",
        pytrace=False,
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Workers for ``-n auto`` (pyproject's default): two for the whole suite, none for a part.

    Two workers about halve the whole suite on two cores (a third of it waits on processes,
    servers and leases). A file or folder named on the command line runs in this process:
    starting workers, each importing Assay and starting a PostgreSQL cluster of its own,
    costs more than it saves there. ``-n NUMBER`` or ``PYTEST_XDIST_AUTO_NUM_WORKERS`` choose.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own reading of it
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return 0
    return min(2, os.cpu_count() or 1)


_POSTGRES_FIXTURES = {
    "postgres_server",
    "postgres_server_url",
    "postgres_url",
    "migrated_postgres_url",
}
#: The marks of the slowest tests: each starts processes (or a browser) and waits on them.
_SLOW_MARKS = ("process", "browser")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest tests first, in their order: the two workers then end together.

    xdist hands out tests in collection order as workers free up; a slow test collected
    last keeps one worker busy while the other has nothing left.
    """
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in _SLOW_MARKS))
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for item in items:
            _join_group(item)


def _join_group(item: pytest.Item) -> None:
    """Give a test of an ``xdist_group`` the id suffix by which xdist sends a group to one worker.

    xdist 3.8 writes the suffix into ``item._nodeid``, which pytest 9.2 no longer reads (its
    ids are structured): every group would be spread over both workers, each starting what
    the group shares (a Ray cluster, a built wheel, Chromium, a server). Where xdist's own
    suffix took effect, the id is left as it is.
    """
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    nodeid = item.nodeid
    if not names or nodeid.rfind("@") > nodeid.rfind("]"):
        return
    grouped = f"{nodeid}@{'_'.join(sorted(names))}"
    item._id = type(item._id).parse(grouped)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Every test needing the server carries the ``postgres`` mark: ``-m`` can leave it out."""
    if _POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.postgres)


@dataclass
class PostgresServer:
    """A server the tests may stop and start (None control when it is not ours)."""

    url: str
    pg_ctl: str | None = None
    data: Path | None = None
    log: Path | None = None
    options: str = ""

    @property
    def controllable(self) -> bool:
        return self.pg_ctl is not None

    def stop(self) -> None:
        """Stop at once, as a crash or a failover would (no clean shutdown)."""
        assert self.pg_ctl is not None and self.data is not None
        _run(_as_postgres([self.pg_ctl, "-D", str(self.data), "stop", "-m", "immediate"]))

    def start(self) -> None:
        assert self.pg_ctl is not None and self.data is not None
        _run(
            _as_postgres(
                [
                    self.pg_ctl,
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-o",
                    self.options,
                    "-w",
                    "start",
                ]
            )
        )


def _started(pg_ctl: str, base: Path, attempts: int = 3) -> PostgresServer:
    """The cluster in ``base`` started on a free port.

    Each test process (one per xdist worker) has a cluster of its own; a port found free may
    be taken by another one's before the server binds it, and then another port is tried.
    """
    failure: RuntimeError | None = None
    for _ in range(attempts):
        port = _free_port()
        server = PostgresServer(
            f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres",
            pg_ctl,
            base / "data",
            base / "server.log",
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
        )
        try:
            server.start()
        except RuntimeError as error:
            failure = error
        else:
            return server
    assert failure is not None
    raise failure


def _memory_folder() -> str | None:
    """Where a throwaway cluster's files go: memory (``/dev/shm``) where there is one.

    The tests create and drop a database for nearly every PostgreSQL test. On a disk
    mounted with ``discard`` each drop trims hundreds of files, and creating a database
    there slowed from 45 ms to 250–350 ms over a few hundred of them (and stayed slow after
    a restart); in memory it stays at 40–50 ms. The server is the same either way.
    """
    memory = Path("/dev/shm")
    return str(memory) if memory.is_dir() and os.access(memory, os.W_OK | os.X_OK) else None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server: ASSAY_TEST_DATABASE_URL, or a throwaway cluster of our own."""
    configured = os.environ.get("ASSAY_TEST_DATABASE_URL")
    if configured:
        yield PostgresServer(configured)
        return
    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        _unavailable("initdb/pg_ctl not found under /usr/lib/postgresql/*/bin or on PATH")
        return
    base = Path(tempfile.mkdtemp(prefix="assay-pg-", dir=_memory_folder()))
    data = base / "data"
    if os.geteuid() == 0:
        shutil.chown(base, user="postgres", group="postgres")
    try:
        _run(_as_postgres([initdb, "-D", str(data), "-A", "trust", "-U", "postgres"]))
        server = _started(pg_ctl, base)
    except (OSError, RuntimeError) as error:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(str(error))
        return
    try:
        yield server
    finally:
        subprocess.run(
            _as_postgres([pg_ctl, "-D", str(data), "stop", "-m", "immediate"]),
            capture_output=True,
            check=False,
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server_url(postgres_server: PostgresServer) -> str:
    """URL of a PostgreSQL server's ``postgres`` database."""
    return postgres_server.url


def _libpq(url: str) -> str:
    """A libpq connection string (psycopg does not understand SQLAlchemy's driver suffix)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _database_url(server_url: str, name: str) -> str:
    return (
        make_url(server_url)
        .set(drivername="postgresql+psycopg", database=name)
        .render_as_string(hide_password=False)
    )


@contextmanager
def _database(server_url: str, template: str | None = None) -> Iterator[str]:
    """A new database on the server (a copy of ``template`` if given), dropped afterwards."""
    name = f"assay_test_{uuid.uuid4().hex[:12]}"
    admin = _libpq(server_url)
    create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        create = sql.SQL("{} TEMPLATE {}").format(create, sql.Identifier(template))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(create)
    try:
        yield _database_url(server_url, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh, empty database on the test server, dropped after the test."""
    with _database(postgres_server_url) as url:
        yield url


# Migrating a database runs every migration's DDL: a few tenths of a second on SQLite, more
# on PostgreSQL, for each of hundreds of tests. Those that need a migrated database but do
# not test migrating get a copy of one migrated once per test process (the migrations
# themselves are tested on empty databases, tests/store).


@pytest.fixture(scope="session")
def _migrated_postgres_template(postgres_server_url: str) -> Iterator[str]:
    """A database migrated once, that no one connects to: PostgreSQL copies it."""
    with _database(postgres_server_url) as url:
        Store.open(url, migrate=True).close()
        yield str(make_url(url).database)


@pytest.fixture
def migrated_postgres_url(
    postgres_server_url: str, _migrated_postgres_template: str
) -> Iterator[str]:
    """A fresh database on the test server, migrated to the latest revision, dropped after."""
    with _database(postgres_server_url, template=_migrated_postgres_template) as url:
        yield url


@pytest.fixture(scope="session")
def _migrated_sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("migrated") / "assay.db"
    Store.open(f"sqlite:///{path}", migrate=True).close()
    return path


@pytest.fixture
def migrated_sqlite_file(_migrated_sqlite_file: Path) -> Callable[[Path], str]:
    """Puts a copy of a migrated SQLite database at a path, and gives its URL."""

    def copy_to(path: Path) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_migrated_sqlite_file, path)
        return f"sqlite:///{path}"

    return copy_to


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL, once per backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/assay.db"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(store_url: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """A migrated store on each backend, in the database of ``store_url``."""
    url = make_url(store_url)
    if url.get_backend_name() == "sqlite":
        request.getfixturevalue("migrated_sqlite_file")(Path(str(url.database)))
    else:
        # The empty database is made again as a copy of the migrated one, under its name.
        server = request.getfixturevalue("postgres_server_url")
        _recreate(server, str(url.database), request.getfixturevalue("_migrated_postgres_template"))
    opened = Store.open(store_url)
    try:
        yield opened
    finally:
        opened.close()


def _recreate(server_url: str, name: str, template: str) -> None:
    with psycopg.connect(_libpq(server_url), autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        connection.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        )


class CrashAfter:
    """A progress display that crashes the harness once ``count`` samples have landed."""

    def __init__(self, count: int) -> None:
        self.count = count

    def start(self, total: int, description: str) -> None:
        pass

    def advance(self, result: object) -> None:
        self.count -= 1
        if self.count == 0:
            raise RuntimeError("harness crashed")

    def note(self, message: str) -> None:
        pass

    def stop(self) -> None:
        pass


@pytest.fixture
def crash_after() -> type[CrashAfter]:
    """Interrupt a run part-way, as a crash of the harness itself would."""
    return CrashAfter
