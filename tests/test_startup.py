"""The collector is held only in the script's own process, and always given back."""

import gc

import pytest

from assay_agents import startup


@pytest.fixture
def collecting(monkeypatch):
    # Counted agent work is the process's: another test may have left an agent running.
    monkeypatch.setattr(startup, "_agent_work", 0)
    monkeypatch.setattr(startup, "_holding", 0)
    enabled = gc.isenabled()
    gc.enable()
    yield
    if not enabled:
        gc.disable()


def test_a_program_that_imports_assay_keeps_its_collector_running(collecting) -> None:
    assert startup._set_aside is False  # this test process is not the script
    with startup.collector_held():
        assert gc.isenabled()
    assert gc.isenabled()


def test_in_the_script_the_collector_is_held_and_given_back(collecting, monkeypatch) -> None:
    monkeypatch.setattr(startup, "_set_aside", True)
    with startup.collector_held():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_is_given_back_when_the_held_work_fails(collecting, monkeypatch) -> None:
    monkeypatch.setattr(startup, "_set_aside", True)
    with pytest.raises(RuntimeError), startup.collector_held():
        raise RuntimeError("the read failed")
    assert gc.isenabled()


def test_a_collector_the_script_found_off_stays_off(monkeypatch) -> None:
    monkeypatch.setattr(startup, "_set_aside", True)
    monkeypatch.setattr(startup, "_agent_work", 0)
    monkeypatch.setattr(startup, "_holding", 0)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with startup.collector_held():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        if enabled:
            gc.enable()


def test_the_collector_is_not_held_while_agents_may_run(collecting, monkeypatch) -> None:
    monkeypatch.setattr(startup, "_set_aside", True)
    with startup.agents_at_work(), startup.collector_held():
        assert gc.isenabled()
    with startup.collector_held():
        assert not gc.isenabled()


def test_overlapping_phases_hold_it_together_and_the_last_gives_it_back(
    collecting, monkeypatch
) -> None:
    monkeypatch.setattr(startup, "_set_aside", True)
    first, second = startup.collector_held(), startup.collector_held()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the second phase still holds it
    second.__exit__(None, None, None)
    assert gc.isenabled()
