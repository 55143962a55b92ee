"""The collector is held only in the script's own process, and always given back.

Each scenario runs in a fresh interpreter: the count of agent work is the process's, and an
agent another test left running could change it mid-scenario.
"""

import json
import subprocess
import sys
import textwrap

import pytest

SCENARIOS = textwrap.dedent(
    """
    import gc, json

    from assay_agents import startup

    seen = {}
    gc.enable()

    with startup.collector_held():
        seen["imported"] = gc.isenabled()
    seen["imported after"] = gc.isenabled()

    startup._set_aside = True  # as set_aside leaves the script's own process
    with startup.collector_held():
        seen["script"] = gc.isenabled()
    seen["script after"] = gc.isenabled()

    try:
        with startup.collector_held():
            raise RuntimeError("the read failed")
    except RuntimeError:
        pass
    seen["after a failure"] = gc.isenabled()

    with startup.agents_at_work(), startup.collector_held():
        seen["agents at work"] = gc.isenabled()

    first, second = startup.collector_held(), startup.collector_held()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    seen["second still holding"] = gc.isenabled()
    second.__exit__(None, None, None)
    seen["both ended"] = gc.isenabled()

    gc.disable()
    with startup.collector_held():
        pass
    seen["found off, left off"] = gc.isenabled()
    print(json.dumps(seen))
    """
)


@pytest.fixture(scope="module")
def seen():
    done = subprocess.run(
        [sys.executable, "-c", SCENARIOS], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_program_that_imports_assay_keeps_its_collector_running(seen) -> None:
    assert seen["imported"] is True
    assert seen["imported after"] is True


def test_in_the_script_the_collector_is_held_and_given_back(seen) -> None:
    assert seen["script"] is False
    assert seen["script after"] is True


def test_the_collector_is_given_back_when_the_held_work_fails(seen) -> None:
    assert seen["after a failure"] is True


def test_the_collector_is_not_held_while_agents_may_run(seen) -> None:
    assert seen["agents at work"] is True


def test_overlapping_phases_hold_it_together_and_the_last_gives_it_back(seen) -> None:
    assert seen["second still holding"] is False
    assert seen["both ended"] is True


def test_a_collector_the_script_found_off_stays_off(seen) -> None:
    assert seen["found off, left off"] is False
