"""A judge that wraps another (a cache, a meter) works unchanged, and keeps its identity."""

from __future__ import annotations

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.judging import Judge, JudgeReply, ask, judge_identity
from assay_agents.testing import ScriptedServer, verdict


class CountingJudge:
    """A meter: counts the calls it passes on, and changes nothing else."""

    def __init__(self, inner: Judge) -> None:
        self.__wrapped__ = inner
        self.label = inner.label
        self.calls = 0

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        self.calls += 1
        return await ask(self.__wrapped__, instructions, prompt)


class CachingJudge(CountingJudge):
    """Asks the wrapped judge once per distinct question; repeats answer from memory."""

    def __init__(self, inner: Judge) -> None:
        super().__init__(inner)
        self.answers: dict[tuple[str, str], JudgeReply] = {}

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        key = (instructions, prompt)
        if key not in self.answers:
            self.answers[key] = await super().complete(instructions, prompt)
        return self.answers[key]


class RenamedCache(CachingJudge):
    """A cache that says it is a judge of its own."""

    def identity(self) -> str:
        return "replayed verdicts"


def judged_suite(judge: Judge) -> assay.Suite:
    suite = assay.Suite(
        "Wrapped judge",
        agent=lambda text, ctx: "Thirty days.",
        judge=judge,
        checks=[checks.contains("days")],
    )
    suite.case("How long is the return window?", id="returns", expected="30 days")
    return suite


def openai_judge(server: ScriptedServer) -> Judge:
    return judges.openai("openai/judge-model", base_url=server.base_url, api_key="test")


def test_a_caching_wrapper_grades_like_the_judge_it_wraps(store: assay.Store) -> None:
    with ScriptedServer(lambda body: verdict(0.9, "Same facts.")) as server:
        cache = CachingJudge(openai_judge(server))
        run = assay.run(judged_suite(cache), db=store, samples=3, concurrency=1, progress=False)
        requests = len(server.requests)
    judged = [m for sample in run.samples for m in sample.metrics if m.kind == "judge"]
    assert len(judged) == 6 and all(m.score == 0.9 and m.passed for m in judged)
    assert cache.calls == 2 and requests == 2  # one per criterion: the same answer each time
    assert isinstance(cache, Judge)


def test_a_wrapper_has_the_identity_of_the_judge_it_wraps(store: assay.Store) -> None:
    with ScriptedServer(lambda body: verdict(1.0, "Same facts.")) as server:
        inner = openai_judge(server)
        meter = CountingJudge(inner)
        run = assay.run(judged_suite(meter), db=store, progress=False)
    assert judge_identity(meter) == judge_identity(inner) == "openai/judge-model @ 127.0.0.1"
    assert store.get_run(run.id).settings.judge == "openai/judge-model @ 127.0.0.1"
    assert meter.calls == 2


def test_a_wrapper_that_says_who_it_is_is_that_judge(store: assay.Store) -> None:
    with ScriptedServer(lambda body: verdict(1.0, "Same facts.")) as server:
        renamed = RenamedCache(openai_judge(server))
        run = assay.run(judged_suite(renamed), db=store, progress=False)
    assert judge_identity(renamed) == "replayed verdicts"
    assert store.get_run(run.id).settings.judge == "replayed verdicts"


def test_a_plain_judge_is_its_label() -> None:
    judge = judges.function("house-judge", lambda instructions, prompt: "{}")
    assert judge_identity(judge) == "house-judge"
