"""Nothing is imported on another thread while agents run.

A module imported on a worker thread while a sync agent imports on its own can be seen half
initialised (``AttributeError: partially initialized module``): an agent error the agent
did not cause. Everything Assay needs during a run (the price catalogue above all) is
imported before the clocks start. The check runs in a fresh interpreter, where nothing is
imported yet, and records every import a thread other than the main one starts.
"""

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, sys, threading

    import assay_agents as assay

    started = []


    class Watch:
        def find_spec(self, name, path=None, target=None):
            if threading.current_thread() is not threading.main_thread() and running:
                started.append(name)
            return None


    running = False
    sys.meta_path.insert(0, Watch())


    def agent(text, ctx):
        # Reports tokens for a model the run was not told about: pricing needs the catalogue.
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
    }))
    """
)


def test_the_price_catalogue_is_imported_before_any_agent_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["errors"] == []
    assert found["priced"] == ["estimated"] * 8
    assert found["imports"] == []
