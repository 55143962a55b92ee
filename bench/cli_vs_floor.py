"""`assay-agents run` as a whole process against a raw ``openai`` script, on the same local server.

Both are fresh Python processes timed from start to exit, start-up and teardown included:
N cases at concurrency 50 against a local OpenAI-compatible server answering after 50 ms,
for N = 1,000 (target: median paired ratio <= 1.20) and N = 10,000 (target <= 1.10). Assay
runs a Python suite (exact match on each answer), persists every sample to SQLite, compares
with the previous run of the same size and prints its summary; the floor is a script that
makes the same N calls with ``asyncio.gather`` and the same client. They alternate, after
one warm-up each (seven rounds at 1,000, three at 10,000 by default).

Beside it, Assay's own cost: the same ``assay-agents run`` of 1,000 cases with an agent that answers
at once (the suite still imports ``openai``) minus ``python -c "import openai"``: start-up,
building and planning the suite, 1,000 samples stored, the comparison, the summary and
teardown, without any request (target under 0.6 s). Wall clock and CPU time (user + system,
as the kernel counts it) are both printed: on a shared machine the CPU time moves less. The
same run of one case splits it: what every run costs whatever its size (start-up, imports,
teardown), and what the 1,000 samples add. The own cost is also printed as a multiple of
``import openai``'s CPU time in the same rounds, a figure that compares across days when the
machine's speed does not.
Run: ``python bench/cli_vs_floor.py [--sizes 1000,10000] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).parent))
from _server import serve

ASSAY = str(Path(sys.executable).parent / "assay-agents")
CONCURRENCY = 50
DELAY = 0.05
#: The target ratio at each size, and the rounds run there by default.
TARGETS = {1_000: 1.20, 10_000: 1.10}
ROUNDS = {1_000: 7, 10_000: 3}
#: The instant run that measures Assay's own cost: its cases, and the target in seconds.
OWN_CASES = 1_000
OWN_TARGET = 0.6

SUITE = """
import os

import assay_agents as assay
from assay_agents import checks
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


suite = assay.Suite("cli bench CASES", agent=agent, checks=[checks.exact_match()],
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


def _write(folder: Path, name: str, body: str, cases: int) -> Path:
    path = folder / name
    text = textwrap.dedent(body).replace("CONCURRENCY", str(CONCURRENCY))
    path.write_text(text.replace("CASES", str(cases)))
    return path


class Timing(NamedTuple):
    """One process: its wall clock and its CPU time (user + system), in seconds."""

    wall: float
    cpu: float


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(command: list[str], folder: Path, env: dict[str, str]) -> Timing:
    cpu_before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    # The process has been waited for: its CPU is now counted among this one's children.
    return Timing(elapsed, _children_cpu() - cpu_before)


def _load() -> str:
    return "load average " + ", ".join(f"{value:.1f}" for value in os.getloadavg())


def _environment(base_url: str) -> dict[str, str]:
    env = {**os.environ, "BENCH_URL": base_url}
    # Installed packages keep their compiled bytecode; without it, every Assay module of
    # an editable install would be compiled from source at every start.
    return {
        key: value
        for key, value in env.items()
        if not key.startswith("ASSAY_") and key != "PYTHONDONTWRITEBYTECODE"
    }


def _figures(values: list[Timing]) -> str:
    walls = ", ".join(f"{value.wall:.2f}" for value in values)
    cpus = ", ".join(f"{value.cpu:.2f}" for value in values)
    return f"{walls} s (CPU {cpus} s)"


def _size(folder: Path, env: dict[str, str], cases: int, rounds: int) -> None:
    """Alternate ``assay-agents run`` and the floor on ``cases`` cases; print the paired ratios."""
    spec = _write(folder, f"bench_suite_{cases}.py", SUITE, cases)
    floor_script = _write(folder, f"floor_{cases}.py", FLOOR, cases)
    assay_run = [ASSAY, "run", str(spec), "--quiet"]
    floor = [sys.executable, str(floor_script)]
    for warm in (floor, assay_run):
        _timed(warm, folder, env)  # the server, the file cache, bytecode and the history
    floors: list[Timing] = []
    runs: list[Timing] = []
    for _ in range(rounds):
        floors.append(_timed(floor, folder, env))
        runs.append(_timed(assay_run, folder, env))
    pairs = list(zip(runs, floors, strict=True))
    ratios = sorted(run.wall / base.wall for run, base in pairs)
    cpu_ratios = sorted(run.cpu / base.cpu for run, base in pairs)
    ratio = statistics.median(ratios)
    target = TARGETS.get(cases, 1.10)
    ideal = -(-cases // CONCURRENCY) * DELAY
    print(
        f"{cases:,} cases, concurrency {CONCURRENCY}, {DELAY * 1000:.0f} ms per call "
        f"(ideal {ideal:.2f} s of requests), {rounds} rounds, {_load()}"
    )
    print(f"  assay-agents run (whole process): {_figures(runs)}")
    print(f"  raw openai script:         {_figures(floors)}")
    print(f"  assay / floor per round:     {', '.join(f'{value:.2f}' for value in ratios)}")
    print(f"  CPU assay / floor per round: {', '.join(f'{value:.2f}' for value in cpu_ratios)}")
    verdict = "OK" if ratio <= target else "MISSED"
    print(f"  median assay / floor = {ratio:.2f} (target <= {target:.2f}) {verdict}")


def _own_cost(folder: Path, env: dict[str, str], rounds: int) -> None:
    """Alternate instant ``assay-agents run``s and ``import openai``; print the differences."""
    instant_run = _instant_run(folder, OWN_CASES)
    single_run = _instant_run(folder, 1)
    import_only = [sys.executable, "-c", "import openai"]
    for warm in (instant_run, single_run, import_only):
        _timed(warm, folder, env)
    instants: list[Timing] = []
    singles: list[Timing] = []
    imports: list[Timing] = []
    for _ in range(rounds):
        instants.append(_timed(instant_run, folder, env))
        singles.append(_timed(single_run, folder, env))
        imports.append(_timed(import_only, folder, env))
    own, own_cpu = _beyond(instants, imports)
    fixed, fixed_cpu = _beyond(singles, imports)
    added, added_cpu = _beyond(instants, singles)
    print(f"Assay's own cost, {OWN_CASES:,} instant samples, {rounds} rounds, {_load()}")
    print(f"  assay-agents run, instant agent:  {_figures(instants)}")
    print(f"  the same, one case:        {_figures(singles)}")
    print(f"  python -c 'import openai': {_figures(imports)}")
    verdict = "OK" if own < OWN_TARGET else "MISSED"
    print(
        f"  whole process minus `import openai` (median): {own:.2f} s, CPU {own_cpu:.2f} s "
        f"(target < {OWN_TARGET:.1f} s) {verdict}"
    )
    print(
        f"    of which every run (one case): {fixed:.2f} s, CPU {fixed_cpu:.2f} s; "
        f"the {OWN_CASES:,} samples: {added:.2f} s, CPU {added_cpu:.2f} s"
    )
    # The same figure in units of this machine's speed at this minute: on a host whose speed
    # varies (shared cores), seconds from two days differ more than the code between them.
    relative = statistics.median(
        (run.cpu - base.cpu) / base.cpu for run, base in zip(instants, imports, strict=True)
    )
    print(f"    in CPU time, {relative:.2f}× `import openai` measured beside it (median per round)")


def _instant_run(folder: Path, cases: int) -> list[str]:
    """``assay-agents run`` of a suite of ``cases`` cases whose agent answers at once."""
    spec = _write(folder, f"instant_suite_{cases}.py", INSTANT_SUITE, cases)
    return [ASSAY, "run", str(spec), "--quiet"]


def _beyond(runs: list[Timing], bases: list[Timing]) -> tuple[float, float]:
    """The median of the paired differences, wall clock and CPU time."""
    pairs = list(zip(runs, bases, strict=True))
    wall = statistics.median(run.wall - base.wall for run, base in pairs)
    cpu = statistics.median(run.cpu - base.cpu for run, base in pairs)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description="assay-agents run against the raw-client floor")
    parser.add_argument("--sizes", default="1000,10000", help="case counts, comma-separated")
    parser.add_argument("--rounds", type=int, help="rounds at every size (default: by size)")
    chosen = parser.parse_args()
    sizes = [int(size) for size in chosen.sizes.split(",")]
    with tempfile.TemporaryDirectory() as scratch, serve(DELAY) as base_url:
        folder = Path(scratch)
        env = _environment(base_url)
        for cases in sizes:
            _size(folder, env, cases, chosen.rounds or ROUNDS.get(cases, 3))
        _own_cost(folder, env, chosen.rounds or ROUNDS[OWN_CASES])


if __name__ == "__main__":
    main()
