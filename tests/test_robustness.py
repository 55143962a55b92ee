"""Odd and hostile input: clear errors (exit 2) and nothing stored or changed."""

import os
import socket

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.results import RunStatus
from assay_agents.results.run import Lease


def agent(text, ctx):
    return "ok"


@pytest.mark.parametrize("value", [42, 1.5, True, "", "   ", [], {}])
def test_a_case_needs_a_real_input(value):
    with pytest.raises(assay.SpecError, match="needs an input"):
        assay.Suite("S", agent=agent).case(value, id="x")


@pytest.mark.parametrize("name", ["openai/", "/gpt-4o", " "])
def test_a_model_needs_a_name(name):
    with pytest.raises(assay.SpecError):
        assay.ModelSpec.parse(name)


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        ({"answer": "a\x00b"}, "NUL"),
        ({"answer": "ok \ud800"}, "surrogate"),
        ({"answer": "ok", "duration_ms": float("nan")}, "finite"),
        ({"answer": "ok", "duration_ms": -5}, "non-negative"),
        ({"answer": "ok", "usage": {"cost_usd": -3.5}}, "must not be negative"),
        ({"answer": "ok", "metadata": {"k": "\x00"}}, "NUL"),
    ],
)
def test_outcomes_every_backend_cannot_store_are_agent_errors(store, outcome, message):
    suite = assay.Suite("Odd", agent=lambda text, ctx: outcome, checks=[checks.contains("ok")])
    suite.case("q")
    run = assay.run(suite, db=store, progress=False)
    assert run.status is RunStatus.COMPLETED
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.ERROR and message in sample.error


def test_case_data_with_a_nul_is_refused_at_definition():
    with pytest.raises(assay.SpecError, match="NUL") as raised:
        assay.Suite("S", agent=agent).case("q", setup={"note": "a\x00b"})
    assert raised.value.field == "setup.note"


def interrupted_run(store, crash_after, **options):
    suite = assay.Suite("Resumable", agent=agent, checks=[checks.contains("ok")])
    for index in range(3):
        suite.case(f"q{index}", id=f"q{index}")
    with pytest.raises(assay.IncompleteRunError):
        assay.run(suite, db=store, concurrency=1, progress=crash_after(1), **options)
    return suite, store.latest_run()


def test_a_resume_cannot_change_the_models_or_the_samples(store, crash_after):
    suite, run = interrupted_run(store, crash_after, models=["gpt-4o"], samples=2)
    with pytest.raises(assay.ConfigurationError, match="cannot change them"):
        assay.run(suite, db=store, resume=run.id, models=["gpt-4.1"], progress=False)
    with pytest.raises(assay.ConfigurationError, match="cannot change that to 3"):
        assay.run(suite, db=store, resume=run.id, samples=3, progress=False)
    done = assay.run(suite, db=store, resume=run.id, samples=2, progress=False)
    assert done.status is RunStatus.COMPLETED and len(done.samples) == 6


def test_a_resume_cannot_change_the_gate_its_run_is_decided_with(store, crash_after):
    from assay_agents.spec.gate import Gate

    suite, run = interrupted_run(store, crash_after, gate=Gate(min_pass_rate=0.5))
    with pytest.raises(assay.ConfigurationError, match="cannot change the gate"):
        assay.run(suite, db=store, resume=run.id, gate=Gate(min_pass_rate=0.9), progress=False)
    with pytest.raises(assay.ConfigurationError, match="cannot change the gate"):
        assay.run(suite, db=store, resume=run.id, fail_on_regression=False, progress=False)
    assert store.get_run(run.id).status is RunStatus.INTERRUPTED
    done = assay.run(suite, db=store, resume=run.id, gate=Gate(min_pass_rate=0.5), progress=False)
    assert done.status is RunStatus.COMPLETED and done.settings.gate.thresholds.min_pass_rate == 0.5


def test_a_run_held_by_a_live_owner_cannot_be_claimed_by_a_resume(store, crash_after):
    suite, run = interrupted_run(store, crash_after)
    # Another live process (this one, under another token) resumed it first.
    other = Lease(host=socket.gethostname(), pid=os.getpid(), token="other")
    store.claim(run.id, other, lease_timeout=60, owner_alive=lambda lease: True)
    held = f"still running in process {os.getpid()} on this host"
    with pytest.raises(assay.StoreError, match=held):
        assay.run(suite, db=store, resume=run.id, progress=False)
    with pytest.raises(assay.StoreError, match=held):
        store.claim(run.id, other, lease_timeout=60, owner_alive=lambda lease: True)


@pytest.mark.parametrize(
    "options", [{"timeout": float("nan")}, {"timeout": float("inf")}, {"samples": 10_001}]
)
def test_absurd_options_are_refused_before_anything_is_stored(store, options):
    suite = assay.Suite("S", agent=agent, checks=[checks.contains("ok")])
    suite.case("q")
    with pytest.raises(assay.SpecError):
        assay.run(suite, db=store, progress=False, **options)
    assert store.history() == []


def test_unusable_database_urls_are_configuration_errors():
    for url in ("nonsense", "sqlite:///:memory:"):
        with pytest.raises(assay.ConfigurationError):
            assay.Store.open(url, migrate=True)
