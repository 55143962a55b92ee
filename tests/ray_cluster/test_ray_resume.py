"""A Ray run whose driver is killed is finished by ``--resume``: its lease lapses with it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.store import Store
from commandline import ASSAY, Cli

pytest.importorskip("ray")
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.process]

CASES = 8

SUITE = """
import os, time
from pathlib import Path
import assay_agents as assay
from assay_agents import checks

def agent(text, ctx):
    Path(ctx.case.metadata["folder"], f"{ctx.case.id}.{os.getpid()}").touch()
    time.sleep(0.3)
    return "ok"

CASES, FOLDER = @CASES@, @FOLDER@
suite = assay.Suite("Killed driver", agent=agent, checks=[checks.contains("ok")])
for number in range(CASES):
    suite.case(f"Question {number}", id=f"q{number}", metadata={"folder": FOLDER})
"""


def stored_so_far(database: Path) -> tuple[str | None, int]:
    """The run in ``database`` (if created yet) and how many samples it has stored."""
    if not database.exists():
        return None, 0
    with sqlite3.connect(database, timeout=30) as connection:
        try:
            row = connection.execute(
                "SELECT runs.id, count(samples.id) FROM runs "
                "LEFT JOIN samples ON samples.run = runs.sequence GROUP BY runs.id"
            ).fetchone()
        except sqlite3.OperationalError:  # the tables are not there yet
            return None, 0
    return (row[0], row[1]) if row else (None, 0)


def test_a_killed_ray_driver_leaves_a_run_that_resume_finishes(
    cluster: str, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    ran.mkdir()
    suite = SUITE.replace("@CASES@", str(CASES)).replace("@FOLDER@", repr(str(ran)))
    (tmp_path / "killed_eval.py").write_text(suite)
    database = tmp_path / ".assay" / "assay.db"
    command = [ASSAY, "run", "killed_eval.py", "--executor", "ray", "--ray-address", cluster]
    driver = subprocess.Popen(
        [*command, "--concurrency", "1", "--quiet"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        run_id, count = stored_so_far(database)
        while count < 2 and driver.poll() is None:
            time.sleep(0.05)
            run_id, count = stored_so_far(database)
        assert driver.poll() is None, "the run ended before it could be killed"
        os.killpg(driver.pid, signal.SIGKILL)
    finally:
        driver.wait()
    assert run_id is not None and 2 <= count < CASES
    workers = {int(path.suffix[1:]) for path in ran.iterdir()}

    resumed = Cli(tmp_path)("run", "killed_eval.py", "--resume", run_id, "--quiet")

    assert resumed.exit_code == 0, resumed.output
    with Store.open(f"sqlite:///{database}") as store:
        run = store.get_run(run_id)
    assert run.status is assay.RunStatus.COMPLETED
    keys = [sample.key for sample in run.samples]
    assert len(keys) == len(set(keys)) == CASES  # every planned sample, each once
    assert {case for case, _, _ in keys} == {f"q{number}" for number in range(CASES)}
    # The dead driver's job ends with it: the workers that ran its tasks are stopped.
    while any(_alive(pid) for pid in workers if pid != os.getpid()):
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
