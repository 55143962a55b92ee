"""How fast `assay-agents --help` answers (target: under 0.3 s), best of ten fresh processes.

Run: ``python bench/cli_startup.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ASSAY = str(Path(sys.executable).parent / "assay-agents")
ROUNDS = 10


def once() -> float:
    started = time.perf_counter()
    subprocess.run([ASSAY, "--help"], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    once()  # warm the file cache
    times = sorted(once() for _ in range(ROUNDS))
    best, median = times[0], times[len(times) // 2]
    verdict = "OK" if median < 0.3 else "MISSED"
    print(
        f"assay-agents --help: best {best * 1000:.0f} ms, median {median * 1000:.0f} ms "
        f"(target < 300 ms) {verdict}"
    )


if __name__ == "__main__":
    main()
