"""Connecting to a Ray cluster: its address checked by form, reached before a run exists.

No cluster is started here: the addresses name nothing, or a port that never answers.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_agents.errors import ConfigurationError
from assay_agents.ray import RayExecutor, address_error
from commandline import ASSAY, Cli, run_process

pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")

SUITE = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("Connected", agent=lambda text: "ok", checks=[checks.contains("ok")])
suite.case("Question", id="q")
"""


@pytest.mark.parametrize(
    "address", ["auto", "127.0.0.1:6379", "ray://head.example:10001", "[::1]:6379", "h-1:1"]
)
def test_the_address_forms_a_cluster_is_named_by_are_accepted(address: str) -> None:
    assert address_error(address) is None
    assert RayExecutor(address=address).address == address


@pytest.mark.parametrize(
    "address",
    [
        "bogus://x",
        "",
        " auto",
        "host",
        "host:",
        "host:port",
        "http://h:1",
        "ray://h:1/x",
        "h:0",
        "h:65536",
        "h:1\n",
        "-h:1",
        "h:\u0661",
    ],
)
def test_any_other_address_is_refused_by_its_form(address: str) -> None:
    assert address_error(address) is not None
    with pytest.raises(ConfigurationError, match="give auto, HOST:PORT or ray://HOST:PORT"):
        RayExecutor(address=address)


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf"), True])
def test_the_connect_timeout_is_a_positive_number_of_seconds(timeout: float) -> None:
    with pytest.raises(ConfigurationError, match="connect_timeout"):
        RayExecutor(connect_timeout=timeout)


def test_a_malformed_address_exits_2_on_one_line_with_nothing_stored(tmp_path: Path) -> None:
    (tmp_path / "connected_eval.py").write_text(SUITE)
    cli = Cli(tmp_path)
    for address in ("bogus://x", "bad\nhost:1"):
        ran = cli("run", "connected_eval.py", "--executor", "ray", "--ray-address", address)
        assert ran.exit_code == 2, ran.output
        message = ran.stderr.strip()
        assert "\n" not in message and "\\x0a" not in message
        assert message.startswith(f"error: --ray-address {address!r}: ")
        assert message.endswith("give auto, HOST:PORT or ray://HOST:PORT")
    assert not (tmp_path / ".assay").exists()


def runs_stored(tmp_path: Path) -> int:
    database = tmp_path / ".assay" / "assay.db"
    if not database.exists():
        return 0
    with sqlite3.connect(database) as connection:
        try:
            return int(connection.execute("SELECT count(*) FROM runs").fetchone()[0])
        except sqlite3.OperationalError:  # the tables are not there
            return 0


def closed_port() -> int:
    """A port of this machine nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.process
def test_an_unreachable_cluster_exits_2_before_the_run_is_created(tmp_path: Path) -> None:
    (tmp_path / "connected_eval.py").write_text(SUITE)
    address = f"127.0.0.1:{closed_port()}"

    ran = run_process(
        ["run", "connected_eval.py", "--executor", "ray", "--ray-address", address], tmp_path
    )

    assert ran.exit_code == 2, ran.output
    assert f"error: cannot connect to Ray at {address!r}: " in ran.stderr
    assert runs_stored(tmp_path) == 0


class Silent:
    """A port that accepts connections and never answers, counting them."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("0.0.0.0", 0))  # Ray dials this machine's address, not loopback
        self.socket.listen(16)
        self.socket.settimeout(0.2)
        self.port = int(self.socket.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                self.accepted.append(self.socket.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        for each in (*self.accepted, self.socket):
            each.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    port = Silent()
    try:
        yield port
    finally:
        port.close()


CONNECT = """
import asyncio, sys
from assay_agents.ray import RayExecutor

try:
    asyncio.run(RayExecutor(address=sys.argv[1], connect_timeout=1).connect())
except Exception as error:
    print(f"{type(error).__name__}: {error}")
"""


@pytest.mark.process
def test_connecting_to_a_port_that_never_answers_gives_up(silent: Silent) -> None:
    address = f"127.0.0.1:{silent.port}"
    done = subprocess.run(
        [sys.executable, "-c", CONNECT, address],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # The attempt left behind in its thread does not keep the process from ending.
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"ConfigurationError: cannot connect to Ray at {address!r}: no answer within 1s; "
        "is the cluster running there?"
    )


@pytest.mark.process
def test_sigterm_while_connecting_exits_143_with_nothing_stored(
    silent: Silent, tmp_path: Path
) -> None:
    (tmp_path / "connected_eval.py").write_text(SUITE)
    address = f"127.0.0.1:{silent.port}"
    driver = subprocess.Popen(
        [ASSAY, "run", "connected_eval.py", "--executor", "ray", "--ray-address", address],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")},
    )
    try:
        # The reachability check connects first, then Ray's own client: it is connecting.
        while len(silent.accepted) < 2 and driver.poll() is None:
            time.sleep(0.05)
        assert driver.poll() is None, driver.stderr.read() if driver.stderr else ""
        driver.send_signal(signal.SIGTERM)
        _, stderr = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 143, stderr
    assert "terminated by SIGTERM: run " in stderr and "was not stored" in stderr
    assert runs_stored(tmp_path) == 0
