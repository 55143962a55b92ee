"""`assay run` as a whole process against a raw ``openai`` script, on the same local server.

Both are fresh Python processes timed from start to exit, start-up and teardown included:
1,000 cases at concurrency 50 against a local OpenAI-compatible server answering after
50 ms. Assay runs a Python suite (exact match on each answer), persists every sample to
SQLite, compares with the previous run and prints its summary; the floor is a script that
makes the same 1,000 calls with ``asyncio.gather`` and the same client. They alternate over
seven rounds, after one warm-up each. Target: median paired ratio <= 1.1.

Two more figures locate Assay's share: the same ``assay run`` with an agent that answers at
once (the suite still imports ``openai``) against ``python -c "import openai"``, which is
Assay's own cost for 1,000 samples with start-up and teardown, without any request.
Run: ``python bench/cli_vs_floor.py``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _server import serve

ASSAY = str(Path(sys.executable).parent / "assay")
CASES = 1_000
CONCURRENCY = 50
DELAY = 0.05
ROUNDS = 7

SUITE = """
import os

import assay
from assay import checks
from openai import AsyncOpenAI

_clients = {}


async def agent(text, ctx):
    api = _clients.get("api")
    if api is None:
        api = _clients["api"] = AsyncOpenAI(base_url=os.environ["BENCH_URL"], api_key="bench",
                                            max_retries=0)
    reply = await api.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": text}])
    return reply.choices[0].message.content or ""


suite = assay.Suite("cli bench", agent=agent, checks=[checks.exact_match()],
                    concurrency=CONCURRENCY)
for number in range(CASES):
    suite.case(f"question {number}", expected="ok")
"""

INSTANT_SUITE = SUITE.replace(
    "async def agent(text, ctx):\n", "async def agent(text, ctx):\n    return 'ok'\n"
)

FLOOR = """
import asyncio
import os

from openai import AsyncOpenAI


async def main():
    api = AsyncOpenAI(base_url=os.environ["BENCH_URL"], api_key="bench", max_retries=0)
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(number):
        async with limit:
            reply = await api.chat.completions.create(
                model="bench", messages=[{"role": "user", "content": f"question {number}"}])
            return reply.choices[0].message.content or ""

    answers = await asyncio.gather(*(one(number) for number in range(CASES)))
    await api.close()
    passed = answers.count("ok")
    print(f"{passed}/{len(answers)} passed")


asyncio.run(main())
"""


def _write(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    text = textwrap.dedent(body).replace("CONCURRENCY", str(CONCURRENCY))
    path.write_text(text.replace("CASES", str(CASES)))
    return path


def _timed(command: list[str], folder: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, serve(DELAY) as base_url:
        folder = Path(scratch)
        spec = _write(folder, "bench_suite.py", SUITE)
        instant_spec = _write(folder, "instant_suite.py", INSTANT_SUITE)
        floor_script = _write(folder, "floor.py", FLOOR)
        env = {**os.environ, "BENCH_URL": base_url}
        # Installed packages keep their compiled bytecode; without it, every Assay module of
        # an editable install would be compiled from source at every start.
        env = {
            key: value
            for key, value in env.items()
            if not key.startswith("ASSAY_") and key != "PYTHONDONTWRITEBYTECODE"
        }
        assay_run = [ASSAY, "run", str(spec), "--quiet"]
        instant_run = [ASSAY, "run", str(instant_spec), "--quiet"]
        floor = [sys.executable, str(floor_script)]
        import_only = [sys.executable, "-c", "import openai"]
        for warm in (floor, assay_run, instant_run, import_only):
            _timed(warm, folder, env)  # the server, the file cache, bytecode and the history
        floors, runs, instants, imports = [], [], [], []
        for _ in range(ROUNDS):
            floors.append(_timed(floor, folder, env))
            runs.append(_timed(assay_run, folder, env))
            instants.append(_timed(instant_run, folder, env))
            imports.append(_timed(import_only, folder, env))
    ratios = sorted(run / base for run, base in zip(runs, floors, strict=True))
    ratio = statistics.median(ratios)
    ideal = -(-CASES // CONCURRENCY) * DELAY
    print(
        f"{CASES:,} cases, concurrency {CONCURRENCY}, {DELAY * 1000:.0f} ms per call "
        f"(ideal {ideal:.2f} s of requests)"
    )
    print(f"assay run (whole process): {', '.join(f'{value:.2f}' for value in runs)} s")
    print(f"raw openai script:         {', '.join(f'{value:.2f}' for value in floors)} s")
    print(f"assay / floor per round: {', '.join(f'{value:.2f}' for value in ratios)}")
    own = statistics.median(i - b for i, b in zip(instants, imports, strict=True))
    print(
        f"assay run with an instant agent minus `import openai` (median): {own:.2f} s, "
        f"{own / statistics.median(floors):.0%} of the floor"
    )
    print(
        f"median assay / floor = {ratio:.2f} (target <= 1.10) {'OK' if ratio <= 1.1 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
