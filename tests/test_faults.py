"""Real faults in a real `assay-agents run`: signals, a dead server, a locked file, a full disk.

Each test proves the lifecycle's guarantees as a user meets them: the run is never left
claiming to be complete with samples missing, never stranded as running, and a resume
finishes it with every planned sample stored exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay_agents.results import RunStatus
from assay_agents.results.run import Lease, Run
from assay_agents.store import Store

pytestmark = pytest.mark.process  # real signals, real crashes

ASSAY = str(Path(sys.executable).parent / "assay-agents")
SPEC = Path(__file__).parent / "cli" / "specs" / "fault_agent.py"
#: Owners that beat every second, so that a lease lapses in seconds rather than in 15.
BEATING = {"ASSAY_HEARTBEAT_INTERVAL": "1"}
#: The shortest lease timeout those owners allow: three heartbeats.
LEASE = 3


class Scene:
    """A scratch folder, the agent's call log, and the database the runs use."""

    def __init__(self, folder: Path, url: str | None) -> None:
        self.folder = folder
        self.url = url
        self.log = folder / "calls.log"

    def env(self, **extra: str) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
        return {**base, "MARKER_DIR": str(self.folder), **extra}

    def args(self, *extra: str) -> list[str]:
        db = [] if self.url is None else ["--db", self.url]
        return [ASSAY, "run", str(SPEC), "--quiet", *db, *extra]

    #: Every process a test started: whatever a failing test leaves running is ended.
    started: list[subprocess.Popen[str]] = []

    def start(self, *extra: str, **env: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            self.args(*extra),
            cwd=self.folder,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        Scene.started.append(process)
        return process

    def run(self, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.args(*extra),
            cwd=self.folder,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def calls(self) -> list[str]:
        return self.log.read_text().split() if self.log.exists() else []

    def wait_for_calls(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.calls()) < count:
            assert time.monotonic() < deadline, f"the agent was called {self.calls()}"
            time.sleep(0.02)

    def wait_for_lease(self, holds: Callable[[Lease], bool], timeout: float = 60) -> Run:
        """The latest run once its stored lease (with a heartbeat) ``holds``."""
        deadline = time.monotonic() + timeout
        while True:
            run = self.latest()
            lease = run.lease
            if lease is not None and lease.heartbeat_at is not None and holds(lease):
                return run
            assert time.monotonic() < deadline, f"the lease stayed {lease}"
            time.sleep(0.1)

    def store(self) -> Store:
        return Store.open(self.url or f"sqlite:///{self.folder}/.assay/assay.db")

    def latest(self):
        with self.store() as store:
            found = store.latest_run()
            assert found is not None
            return store.get_run(found.id)


@pytest.fixture(autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    yield
    while Scene.started:
        process = Scene.started.pop()
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def scene(request: pytest.FixtureRequest, tmp_path: Path) -> Scene:
    if request.param == "sqlite":
        return Scene(tmp_path, None)
    return Scene(tmp_path, str(request.getfixturevalue("migrated_postgres_url")))


def assert_complete_once(scene: Scene, run_id: str, cases: int = 8) -> None:
    run = scene.latest()
    assert run.id == run_id and run.status is RunStatus.COMPLETED
    keys = [sample.key for sample in run.samples]
    assert sorted(keys) == sorted({(f"t{i}", None, 0) for i in range(cases)})
    assert run.summary is not None and run.summary.passed == cases


def resume_and_check(scene: Scene, run_id: str, stored_before: set[str]) -> None:
    calls_before = len(scene.calls())
    resumed = scene.run("--resume", run_id)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert_complete_once(scene, run_id)
    rerun = scene.calls()[calls_before:]
    # The resume ran exactly what was not stored: nothing stored is run again.
    assert not stored_before & set(rerun)
    assert sorted(rerun + sorted(stored_before)) == [f"t{i}" for i in range(8)]


def test_sigterm_keeps_the_run_interrupted_and_a_resume_finishes_it(scene: Scene) -> None:
    process = scene.start(SLOW_SECONDS="1.0")  # still running however slow the machine
    scene.wait_for_calls(3)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 143, stderr
    assert "terminated by SIGTERM" in stderr and "--resume" in stderr
    run = scene.latest()
    assert run.status is RunStatus.INTERRUPTED and run.error == "terminated by SIGTERM"
    resume_and_check(scene, run.id, {sample.case_id for sample in run.samples})


def test_sighup_is_handled_like_sigterm(scene: Scene) -> None:
    process = scene.start(SLOW_SECONDS="1.0")
    scene.wait_for_calls(2)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 129, stderr
    assert scene.latest().status is RunStatus.INTERRUPTED


def test_after_sigkill_the_dead_owner_releases_its_run(scene: Scene) -> None:
    process = scene.start(SLOW_SECONDS="1.0")
    scene.wait_for_calls(4)
    time.sleep(0.7)  # past a flush interval: the samples that landed are written
    process.kill()
    process.communicate(timeout=30)
    run = scene.latest()
    assert run.status is RunStatus.RUNNING  # nothing could say otherwise: the lease must
    assert run.lease is not None and run.lease.pid == process.pid
    stored_before = {sample.case_id for sample in run.samples}
    assert len(stored_before) >= 2
    history = subprocess.run(
        [ASSAY, "history", *([] if scene.url is None else ["--db", scene.url])],
        cwd=scene.folder,
        env=scene.env(),
        capture_output=True,
        text=True,
    )
    assert "stale" in history.stdout and f"--resume {run.id[:8]}" in history.stdout
    resume_and_check(scene, run.id, stored_before)


def _plant_owner(scene: Scene, run_id: str, pid: int, started: str | None) -> None:
    """Record another owner on the run, as a process with a recycled pid would appear."""
    from sqlalchemy import create_engine, text

    engine = create_engine(scene.url or f"sqlite:///{scene.folder}/.assay/assay.db")
    try:
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE runs SET owner_pid = :pid, owner_started = :started WHERE id = :id"),
                {"pid": pid, "started": started, "id": run_id},
            )
    finally:
        engine.dispose()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="start times are read in /proc")
def test_a_recycled_pid_does_not_keep_a_dead_owner_alive(scene: Scene) -> None:
    from assay_agents.evaluation.lease import process_start

    process = scene.start(SLOW_SECONDS="1.0")
    scene.wait_for_calls(2)
    process.kill()
    process.communicate(timeout=30)
    run = scene.latest()
    assert run.status is RunStatus.RUNNING and run.lease is not None
    assert run.lease.started is not None  # the owner's start was recorded with its pid
    unrelated = subprocess.Popen(["sleep", "60"], text=True)
    Scene.started.append(unrelated)
    started = process_start(unrelated.pid)
    assert started is not None
    # The same pid and the same start: that process is the owner, and it is alive.
    _plant_owner(scene, run.id, unrelated.pid, started)
    refused = scene.run("--resume", run.id)
    assert refused.returncode == 2, refused.stderr
    assert f"is still running in process {unrelated.pid} on this host" in refused.stderr
    # The same pid, another start: the pid was recycled; the owner is gone.
    boot, _, ticks = started.rpartition(":")
    _plant_owner(scene, run.id, unrelated.pid, f"{boot}:{int(ticks) + 1}")
    resume_and_check(scene, run.id, {sample.case_id for sample in run.samples})
    assert unrelated.poll() is None  # the unrelated process was left alone


def test_ctrl_c_while_the_run_is_being_created_never_leaves_it_running(tmp_path: Path) -> None:
    """Ctrl-C while the run's row is being written in its thread: written, it is interrupted.

    The test holds SQLite's write lock, so each attempt to create the run waits for it (up to
    a short busy timeout, then retries); Ctrl-C lands during an attempt or between two, and
    the lock is released after it. Wherever it landed, the run is never left ``running``.
    """
    import sqlite3

    for delivery in range(4):
        scene = Scene(tmp_path / f"delivery-{delivery}", None)
        scene.folder.mkdir()
        env = {"ASSAY_SQLITE_BUSY_TIMEOUT_MS": "300"}
        # Created and migrated in this process: only the run needs one of its own.
        Store.open(f"sqlite:///{scene.folder}/.assay/assay.db", migrate=True).close()
        lock = sqlite3.connect(scene.folder / ".assay" / "assay.db", isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        process = scene.start(**env)
        assert process.stderr is not None
        for line in process.stderr:
            if "retrying to start the run" in line:
                break
        time.sleep(0.07 * delivery)  # a different moment of the retry cycle each time
        process.send_signal(signal.SIGINT)
        time.sleep(0.1)
        lock.rollback()
        lock.close()
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        with scene.store() as store:
            statuses = [run.status for run in store.history()]
        assert RunStatus.RUNNING not in statuses, (delivery, statuses, stderr)
        assert "Traceback" not in stderr


def test_a_live_owner_keeps_its_run_from_a_second_resumer(scene: Scene) -> None:
    process = scene.start(SLOW_SECONDS="3")  # still running however slow the machine
    scene.wait_for_calls(1)
    run_id = scene.latest().id
    refused = scene.run("--resume", run_id)
    assert refused.returncode == 2, refused.stderr
    assert f"is still running in process {process.pid} on this host" in refused.stderr
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)


@pytest.mark.postgres
def test_postgres_restarting_mid_run_loses_nothing(
    tmp_path: Path, migrated_postgres_url: str, postgres_server
) -> None:
    if not postgres_server.controllable:
        pytest.skip("the server comes from ASSAY_TEST_DATABASE_URL; it is not ours to stop")
    scene = Scene(tmp_path, migrated_postgres_url)
    process = scene.start("--store-retry", "60", SLOW_SECONDS="0.5")
    scene.wait_for_calls(2)
    postgres_server.stop()
    time.sleep(1.5)  # samples land meanwhile; their writes fail and are kept
    postgres_server.start()
    _, stderr = process.communicate(timeout=90)
    assert process.returncode == 0, stderr
    assert "store unavailable" in stderr and "store available again" in stderr
    assert_complete_once(scene, scene.latest().id)


@pytest.mark.postgres
def test_postgres_staying_down_stops_the_run_with_exit_3_and_resume_finishes_it(
    tmp_path: Path, migrated_postgres_url: str, postgres_server
) -> None:
    if not postgres_server.controllable:
        pytest.skip("the server comes from ASSAY_TEST_DATABASE_URL; it is not ours to stop")
    scene = Scene(tmp_path, migrated_postgres_url)
    process = scene.start("--store-retry", "1.5", SLOW_SECONDS="1.0")
    scene.wait_for_calls(3)
    postgres_server.stop()
    try:
        _, stderr = process.communicate(timeout=60)
    finally:
        postgres_server.start()
    assert process.returncode == 3, stderr
    assert "could not be completed" in stderr and "--resume" in stderr
    assert "***" not in stderr or "postgres@" in stderr  # a URL, when shown, is masked
    run = scene.latest()
    assert run.status in (RunStatus.RUNNING, RunStatus.INTERRUPTED)
    resume_and_check(scene, run.id, {sample.case_id for sample in run.samples})


def _lock_sqlite(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the write lock (BEGIN IMMEDIATE) for ``seconds``.

    A line on its standard input releases the lock sooner.
    """
    code = (
        "import select, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True)\n"
        "select.select([sys.stdin], [], [], float(sys.argv[2])); c.execute('COMMIT')\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(path), str(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    holder.stdout.close()
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=10)


def test_sqlite_locked_past_the_busy_timeout_is_waited_out(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    assert scene.run(CASES="1").returncode == 0  # creates the database
    process = scene.start(
        "--store-retry", "60", ASSAY_SQLITE_BUSY_TIMEOUT_MS="200", SLOW_SECONDS="1.0"
    )
    scene.wait_for_calls(3)
    holder = _lock_sqlite(tmp_path / ".assay" / "assay.db", 2.0)
    _, stderr = process.communicate(timeout=60)
    _release(holder)
    assert process.returncode == 0, stderr
    assert "store unavailable" in stderr and "locked" in stderr
    assert_complete_once(scene, scene.latest().id)


def test_sqlite_locked_for_good_stops_with_exit_3_then_resumes(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    assert scene.run(CASES="1").returncode == 0
    process = scene.start(
        "--store-retry", "1", ASSAY_SQLITE_BUSY_TIMEOUT_MS="100", SLOW_SECONDS="1.0"
    )
    scene.wait_for_calls(2)
    holder = _lock_sqlite(tmp_path / ".assay" / "assay.db", 60.0)
    _, stderr = process.communicate(timeout=60)
    _release(holder)  # held until the run gave up on the store
    assert process.returncode == 3, stderr
    assert "database is locked" in stderr and "--resume" in stderr
    run = scene.latest()
    assert run.status is not RunStatus.COMPLETED
    resume_and_check(scene, run.id, {sample.case_id for sample in run.samples})


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    # Not world-writable (a tmpfs root is, by default): Assay keeps no history in such a folder.
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=600k,mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a small tmpfs in CI: {done.stderr}")
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_stops_the_run_with_exit_3_and_a_resume_finishes_it(small_disk: Path) -> None:
    scene = Scene(small_disk, None)
    padded = {"ANSWER_BYTES": "120000", "SLOW_SECONDS": "0.05"}
    process = scene.start("--store-retry", "1", **padded)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 3, stderr
    assert "full" in stderr and "--resume" in stderr
    run = scene.latest()
    assert run.status is not RunStatus.COMPLETED and len(run.samples) < 8
    stored_before = {sample.case_id for sample in run.samples}
    subprocess.run(["mount", "-o", "remount,size=20m", str(small_disk)], check=True)
    calls_before = len(scene.calls())
    resumed = scene.run("--resume", run.id, **padded)
    assert resumed.returncode == 0, resumed.stderr
    assert_complete_once(scene, run.id)
    assert not stored_before & set(scene.calls()[calls_before:])


def test_a_disk_that_fills_while_samples_are_in_flight_is_said_once(small_disk: Path) -> None:
    scene = Scene(small_disk, None)
    # The disk fills within a few samples; the agents finish (4 s) before the store is given
    # up on (8 s), so the run's last write waits behind a retried one when the run stops.
    process = scene.start(
        "--store-retry",
        "8",
        ANSWER_BYTES="120000",
        SLOW_SECONDS="0.5",
        CASES="16",
        MARKER_DIR=str(small_disk.parent),
    )
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 3, stderr
    assert "never retrieved" not in stderr and "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "full" in errors[0], stderr


def test_a_deleted_database_stops_the_run_instead_of_writing_nowhere(tmp_path: Path) -> None:
    import shutil

    scene = Scene(tmp_path, None)
    process = scene.start(SLOW_SECONDS="0.6", CASES="12")
    scene.wait_for_calls(3)
    shutil.rmtree(tmp_path / ".assay")
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 3, stderr
    assert "was removed or replaced" in stderr


def test_a_displaced_owner_stops_and_leaves_the_run_to_its_new_owner(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    first = scene.start(SLOW_SECONDS="1.5", **BEATING)
    scene.wait_for_calls(2)
    first.send_signal(signal.SIGSTOP)  # alive, but silent: its heartbeat goes stale
    try:
        time.sleep(LEASE + 1)  # past the shortest lease timeout a resume accepts
        run_id = scene.latest().id
        taker = scene.start(
            "--resume", run_id, "--lease-timeout", str(LEASE), SLOW_SECONDS="0.4", **BEATING
        )
        deadline = time.monotonic() + 60
        while (scene.latest().lease or taker).pid != taker.pid:  # until the run is the taker's
            assert taker.poll() is None and time.monotonic() < deadline, taker.communicate()
            time.sleep(0.2)
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=60)
    _, taker_err = taker.communicate(timeout=60)
    assert taker.returncode == 0, taker_err
    assert first.returncode == 3, stderr
    assert "another process took it over" in stderr and "--resume" not in stderr
    assert "Traceback" not in stderr and "never retrieved" not in stderr
    assert_complete_once(scene, run_id)


def test_an_agent_blocking_the_event_loop_keeps_its_run(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    blocking = [ASSAY, "run", str(SPEC.with_name("blocking_agent.py")), "--quiet"]
    # Blocked until the resume below was refused, however loaded the machine: then released.
    release = tmp_path / "release"
    owner = subprocess.Popen(
        blocking,
        cwd=tmp_path,
        env=scene.env(BLOCK_SECONDS="300", RELEASE_FILE=str(release), **BEATING),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    Scene.started.append(owner)
    scene.wait_for_calls(1)
    blocked = datetime.fromtimestamp(scene.log.stat().st_mtime, UTC)
    # The loop is blocked past the lease, and the heartbeat went on: a beat is stored from
    # more than the lease after the loop blocked.
    run_id = scene.wait_for_lease(
        lambda lease: (lease.heartbeat_at - blocked).total_seconds() > LEASE
    ).id
    listed = subprocess.run(
        [ASSAY, "history"], cwd=tmp_path, env=scene.env(), capture_output=True, text=True
    )
    assert "running" in listed.stdout and "stale" not in listed.stdout, listed.stdout
    taken = subprocess.run(
        [*blocking, "--resume", run_id, "--lease-timeout", str(LEASE)],
        cwd=tmp_path,
        env=scene.env(BLOCK_SECONDS="0", **BEATING),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert taken.returncode == 2, taken.stderr
    assert f"is still running in process {owner.pid} on this host" in taken.stderr
    release.touch()
    _, stderr = owner.communicate(timeout=60)
    assert owner.returncode == 0, stderr
    assert sorted(scene.calls()) == ["t0", "t1", "t2"]  # no agent call ran twice
    assert_complete_once(scene, run_id, cases=3)


def test_an_agent_holding_the_interpreter_lock_keeps_its_run(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    busy = [ASSAY, "run", str(SPEC.with_name("gil_agent.py")), "--quiet"]
    # Minutes of backtracking in C: no thread of the owner, its heartbeat's included, runs.
    owner = subprocess.Popen(
        busy,
        cwd=tmp_path,
        env=scene.env(GIL_LENGTH="31", **BEATING),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    Scene.started.append(owner)
    scene.wait_for_calls(1)
    # Until the owner's last heartbeat is older than the lease.
    run_id = scene.wait_for_lease(lambda lease: lease.age(datetime.now(UTC)) > LEASE).id
    taken = subprocess.run(
        [*busy, "--resume", run_id, "--lease-timeout", str(LEASE)],
        cwd=tmp_path,
        env=scene.env(GIL_LENGTH="0", **BEATING),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert taken.returncode == 2, taken.stdout + taken.stderr
    assert f"is still running in process {owner.pid} on this host" in taken.stderr
    assert scene.calls() == ["t0"]  # the resume ran nothing
    run = scene.latest()
    assert run.status is RunStatus.RUNNING and run.lease is not None
    assert run.lease.pid == owner.pid


@pytest.mark.parametrize("seconds", ["1", "14.9"])
def test_a_lease_timeout_shorter_than_three_heartbeats_is_refused(
    tmp_path: Path, seconds: str
) -> None:
    from typer.testing import CliRunner

    from assay_agents.cli.app import app

    scene = Scene(tmp_path, None)
    done = CliRunner().invoke(
        app,
        ["run", str(SPEC), "--quiet", "--resume", "abcd1234", "--lease-timeout", seconds],
        env=scene.env(),
    )
    assert done.exit_code == 2, done.output
    assert "--lease-timeout" in done.output and "three heartbeats" in done.output
    assert not scene.calls()


def test_ctrl_c_before_the_run_is_stored_prints_no_resume_command(tmp_path: Path) -> None:
    scene = Scene(tmp_path, None)
    process = subprocess.Popen(
        [ASSAY, "run", str(SPEC.with_name("slow_start_agent.py")), "--quiet"],
        cwd=tmp_path,
        env=scene.env(PREPARE_SECONDS="3"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    Scene.started.append(process)
    deadline = time.monotonic() + 60
    while not (tmp_path / "preparing").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume" not in stderr and "was not stored; nothing to resume" in stderr
    with scene.store() as store:
        assert store.history() == []


def _wait_until_waiting_for_a_lock(engine) -> None:
    from sqlalchemy import text

    deadline = time.monotonic() + 60
    query = text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
    while True:
        with engine.connect() as connection:
            if connection.execute(query).scalar_one():
                return
        assert time.monotonic() < deadline, "nothing ever waited for the lock"
        time.sleep(0.05)


@pytest.mark.postgres
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_during_completion_lets_it_finish_and_reports_it_completed(
    tmp_path: Path, migrated_postgres_url: str, signum: signal.Signals
) -> None:
    from sqlalchemy import create_engine, text

    scene = Scene(tmp_path, migrated_postgres_url)
    engine = create_engine(migrated_postgres_url)
    try:
        with engine.connect() as holder:
            process = scene.start(SLOW_SECONDS="0.5", CASES="3")
            scene.wait_for_calls(1)
            run_id = scene.latest().id
            # Samples and heartbeats pass a KEY SHARE lock; the completing FOR UPDATE waits.
            holding = holder.begin()
            holder.execute(text("SELECT 1 FROM runs WHERE id = :id FOR KEY SHARE"), {"id": run_id})
            _wait_until_waiting_for_a_lock(engine)
            process.send_signal(signum)
            time.sleep(1.0)  # handled meanwhile; the completion still waits
            holding.commit()
        stdout, stderr = process.communicate(timeout=60)
    finally:
        engine.dispose()
    run = scene.latest()
    assert run.id == run_id and run.status is RunStatus.COMPLETED
    assert process.returncode == 0, stderr
    assert "--resume" not in stderr and "interrupted" not in stderr
    assert "3/3" in stdout
