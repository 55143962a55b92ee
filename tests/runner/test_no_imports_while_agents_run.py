"""Nothing is imported on another thread while agents run, nor while any agent call is in flight.

A module imported on a worker thread while a sync agent imports on its own can be seen half
initialised (``AttributeError: partially initialized module``): an agent error the agent
did not cause. Everything Assay needs during a run is imported before the clocks start, but
the price catalogue: a plain agent with no model, judge or adapter may never need it, and
the first of its samples that does has it loaded on the event loop while no agent call
runs. The checks run in a fresh interpreter, where nothing is imported yet, and record every
import a thread other than the main one starts.
"""

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time

    import assay_agents as assay

    started = []


    class Watch:
        def find_spec(self, name, path=None, target=None):
            if threading.current_thread() is not threading.main_thread() and running:
                started.append(name)
            return None


    running = False
    sys.meta_path.insert(0, Watch())


    seen = []


    def agent(text, ctx):
        # Reports tokens for a model the run was not told about: pricing needs the catalogue,
        # which must not appear while this call runs (its clock would pay for it).
        before = "genai_prices.data" in sys.modules
        # Staggered: the first sample is priced while the others of its wave still run.
        time.sleep(0.1 * (int(text[1:]) % 4))
        seen.append((before, "genai_prices.data" in sys.modules))
        return assay.Outcome(
            answer="ok",
            usage=assay.Usage(input_tokens=100, output_tokens=10),
            metadata={"model": "gpt-4.1-mini"},
        )


    class Observer:
        def run_started(self, run, total):
            global running
            running = True

        def sample_finished(self, run, result):
            pass

        def run_finished(self, run, verdict):
            global running
            running = False


    suite = assay.Suite("Threads", agent=agent, concurrency=4)
    for index in range(8):
        suite.case(f"q{index}", checks=[assay.checks.contains("ok")])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, observers=[Observer()])
    print(json.dumps({
        "imports": sorted(set(started)),
        "errors": [s.error for s in run.samples if s.error],
        "priced": [s.usage.cost_source for s in run.samples],
        "seen": seen,
    }))
    """
)


def _run(script, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_price_catalogue_loads_on_the_event_loop_while_no_agent_call_runs(tmp_path):
    found = _run(SCRIPT, tmp_path)
    assert found["errors"] == []
    assert found["priced"] == ["estimated"] * 8
    assert found["imports"] == []
    # Loaded between calls: no call saw it appear, and the later ones found it there.
    assert all(before == after for before, after in found["seen"]), found["seen"]
    assert [after for _, after in found["seen"]].count(True) >= 1


UNPRICED = textwrap.dedent(
    """
    import json, sys

    import assay_agents as assay


    def agent(text, ctx):
        return assay.Outcome(answer="ok", usage=assay.Usage(input_tokens=100, output_tokens=10))


    suite = assay.Suite("Unpriced", agent=agent, concurrency=4)
    for index in range(4):
        suite.case(f"q{index}", checks=[assay.checks.contains("ok")])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False)
    print(json.dumps({
        "loaded": "genai_prices.data" in sys.modules,
        "passed": run.summary.passed,
        "priced": [s.usage.cost_source for s in run.samples],
    }))
    """
)


def test_a_run_that_prices_nothing_never_loads_the_price_catalogue(tmp_path):
    # Tokens but no model, no judge, no --model: there is nothing to price them at.
    found = _run(UNPRICED, tmp_path)
    assert found["passed"] == 4
    assert found["priced"] == ["unpriced"] * 4
    assert found["loaded"] is False
