"""A throwaway PostgreSQL cluster for benchmarks, started as the tests start theirs.

``initdb`` and ``pg_ctl`` from ``/usr/lib/postgresql/<version>/bin`` (the newest) or the
PATH, run as the ``postgres`` user when this process is root (PostgreSQL refuses root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _binary(name: str) -> str:
    found = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda path: int(Path(path).parents[1].name or 0),
    )
    chosen = found[-1] if found else shutil.which(name)
    if chosen is None:
        raise SystemExit(f"{name} not found: install PostgreSQL or pass a database URL")
    return chosen


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    done = subprocess.run(_as_postgres(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stdout}{done.stderr}")


@contextmanager
def cluster(folder: Path | None = None) -> Iterator[str]:
    """A running cluster's URL; its data in ``folder`` (kept) or a temporary one (removed).

    A ``folder`` that already holds a cluster is started again as it is.
    """
    base = Path(tempfile.mkdtemp(prefix="assay-bench-pg-")) if folder is None else folder
    base.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(base, user="postgres", group="postgres")
    data = base / "data"
    if not (data / "PG_VERSION").exists():
        _run([_binary("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = _binary("pg_ctl")
    _run([pg_ctl, "-D", str(data), "-l", str(base / "server.log"), "-o", options, "-w", "start"])
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        _run([pg_ctl, "-D", str(data), "stop", "-m", "fast"])
        if folder is None:
            shutil.rmtree(base, ignore_errors=True)
