"""A stored run gives back the judge it was graded with: its spec is kept, never its key."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.errors import ConfigurationError
from assay_agents.judging import judge_identity
from assay_agents.judging.spec import judge_spec
from assay_agents.record import read_settings, rebuilt_cases, rebuilt_judge, write_settings
from assay_agents.results import RunSettings
from assay_agents.results.settings import JudgeSpec
from assay_agents.spec.plan import plan_suite
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer, verdict


def _agent(text: str, ctx: object) -> str:
    return "You can return it within thirty days."


def _suite(judge: object) -> assay.Suite:
    suite = assay.Suite("Judged", agent=_agent, judge=judge, checks=[checks.contains("days")])
    suite.case(
        "How long do I have to return an item?",
        id="returns",
        expected="30 days",
        criteria=["tone"],
        minimum_scores={"tone": 0.5},
    )
    return suite


def test_a_judged_run_stores_a_judge_it_can_build_again(tmp_path: Path) -> None:
    replies = iter([verdict(5, "fine"), verdict(4, "good")])
    with ScriptedServer(lambda body: next(replies)) as server:
        judge = judges.openai(
            "judge-model", base_url=server.base_url, api_key="secret-key", temperature=0.2
        )
        with Store.open(f"sqlite:///{tmp_path / 'assay.db'}", migrate=True) as store:
            run = assay.run(_suite(judge), db=store, progress=False)
            stored = store.get_run(run.id)
        spec = stored.settings.judge_spec
        assert spec == JudgeSpec(
            client="openai",
            model="judge-model",
            label="judge-model",
            provider="openai",
            base_url=server.base_url,
            temperature=0.2,
            timeout=60.0,
            judge_timeout=judge.judge_timeout,
        )
        assert "secret-key" not in str(write_settings(stored.settings))
        # The cases it ran plan again to the fingerprints it stored.
        cases = rebuilt_cases(stored)
        replanned = plan_suite(stored.suite, stored.suite_version, cases, (), judged=True)
        assert replanned.fingerprint == stored.fingerprint
        again = rebuilt_judge(stored, api_key="test")
        assert judge_identity(again) == stored.settings.judge
        # The rebuilt judge grades over the same endpoint.
        with Store.open(f"sqlite:///{tmp_path / 'again.db'}", migrate=True) as other:
            regraded = assay.run(_suite(again), db=other, progress=False)
    assert regraded.samples[0].metric("tone").score == 0.75


def test_a_run_without_a_kept_spec_has_no_judge_to_rebuild() -> None:
    settings = read_settings({"samples": 1, "judge": "judge-model @ 127.0.0.1"})
    assert settings.judge_spec is None
    assert write_settings(RunSettings()).get("judge_spec") is None


def test_a_function_judge_keeps_no_spec(tmp_path: Path) -> None:
    judge = judges.function("fixed", lambda system, prompt: '{"score": 5, "reason": "ok"}')
    with Store.open(f"sqlite:///{tmp_path / 'assay.db'}", migrate=True) as store:
        run = assay.run(_suite(judge), db=store, progress=False)
    assert run.settings.judge == "fixed" and run.settings.judge_spec is None
    with pytest.raises(ConfigurationError, match="keeps no judge it can build again"):
        rebuilt_judge(run)


def test_a_kept_endpoint_holds_no_credentials() -> None:
    judge = judges.openai("judge-model", base_url="https://user:pw@judge.example/v1", api_key="k")
    spec = judge_spec(judge)
    assert spec is not None and spec.base_url == "https://judge.example/v1"
