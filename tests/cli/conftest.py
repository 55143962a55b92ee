import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")
SPECS = Path(__file__).parent / "specs"


class Cli:
    """Runs the real `assay` executable in a scratch working directory."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def __call__(self, *args, env=None, timeout=60):
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
        environment.update(env or {})
        return subprocess.run(
            [ASSAY, *map(str, args)],
            cwd=self.cwd,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def json_report(self, *args, env=None):
        done = self("report", *args, "--format", "json", env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture
def cli(tmp_path):
    return Cli(tmp_path)


@pytest.fixture
def specs():
    return SPECS


@pytest.fixture
def assay_executable():
    return ASSAY


@pytest.fixture
def support_spec():
    return REPO / "examples" / "support_eval.py"
