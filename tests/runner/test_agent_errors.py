"""An agent exception keeps its traceback (the user's frames only); agents of one argument."""

import asyncio

import assay_agents as assay
from assay_agents import checks
from assay_agents.record import write
from assay_agents.results import SampleStatus
from assay_agents.results.tracebacks import TRACEBACK_FRAMES, TRACEBACK_KEY, traceback_of
from assay_agents.runner import Execution, Runner


def execute(suite):
    runner = Runner(suite.agent, execution=Execution(concurrency=4))
    return asyncio.run(runner.execute(suite.plan()))


def _lookup(table):
    return table["missing"]


def test_an_agent_exception_stores_the_users_frames_only():
    def agent(text, ctx):
        return _lookup({})

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.contains("x")])
    (result,) = execute(suite)
    assert result.status is SampleStatus.ERROR and result.error == "KeyError: 'missing'"
    trace = traceback_of(result)
    assert trace is not None and trace == result.metadata[TRACEBACK_KEY]
    assert trace.startswith("Traceback (most recent call last):")
    assert "in agent" in trace and "in _lookup" in trace and trace.endswith("KeyError: 'missing'")
    # Nothing of Assay's own machinery, nor of asyncio or threading, is kept.
    assert "assay_agents/" not in trace and "asyncio" not in trace and "threading" not in trace


def test_an_async_agent_exception_keeps_its_frames_too():
    async def agent(text, ctx):
        await asyncio.sleep(0)
        return _lookup({})

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.contains("x")])
    (result,) = execute(suite)
    trace = traceback_of(result)
    assert trace is not None and "in agent" in trace and "asyncio" not in trace


def test_a_deep_traceback_keeps_the_innermost_frames():
    def deep(n):
        if n == 0:
            raise RuntimeError("bottom")
        return deep(n - 1)

    suite = assay.Suite("S", agent=lambda text, ctx: deep(50))
    suite.case("q", checks=[checks.contains("x")])
    (result,) = execute(suite)
    trace = traceback_of(result)
    # 52 user frames (the lambda and 51 calls of deep): the innermost 20 are kept.
    assert trace is not None and TRACEBACK_FRAMES == 20
    assert "32 earlier frame(s) left out" in trace and "<lambda>" not in trace
    assert trace.endswith("RuntimeError: bottom")


def test_a_traceback_no_store_can_hold_makes_the_sample_an_error_naming_it():
    def agent(text, ctx):
        raise ValueError("nul \x00 inside")

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.contains("x")])
    (result,) = execute(suite)
    assert result.status is SampleStatus.ERROR and "\x00" not in str(write(result))


def test_a_timeout_has_no_traceback():
    async def agent(text, ctx):
        await asyncio.sleep(5)

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.contains("x")])
    runner = Runner(suite.agent, execution=Execution(timeout=0.05))
    (result,) = asyncio.run(runner.execute(suite.plan()))
    assert "timed out" in (result.error or "") and traceback_of(result) is None


def test_an_agent_of_one_argument_is_called_with_the_input_alone():
    def sync_agent(question):
        return question.upper()

    async def async_agent(question):
        return question.upper()

    class Callable:
        def __call__(self, question):
            return question.upper()

    for agent in (sync_agent, async_agent, Callable(), lambda question: question.upper()):
        suite = assay.Suite("S", agent=agent)
        suite.case("q", expected="Q", checks=[checks.exact_match()])
        (result,) = execute(suite)
        assert result.status is SampleStatus.PASSED, (agent, result.error)


def test_agents_taking_the_context_or_any_arguments_get_both():
    seen = []

    def keyword_context(question, ctx=None):
        seen.append(ctx is not None)
        return "a"

    def variadic(*args):
        seen.append(len(args) == 2)
        return "a"

    for agent in (keyword_context, variadic):
        suite = assay.Suite("S", agent=agent)
        suite.case("q", checks=[checks.contains("a")])
        execute(suite)
    assert seen == [True, True]
