import os
import subprocess

import pytest

from conftest import ASSAY


@pytest.mark.parametrize("command", ["run", "history", "report", "compare", "validate",
                                     "control", "schema"])
def test_help_names_values_as_command_line_tools_do(command):
    done = subprocess.run([ASSAY, command, "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"}, check=True)
    for python_type in ("<bool>", "<str>", "<int", "<float>", "<path>", "<list["):
        assert python_type not in done.stdout, (python_type, done.stdout)
    assert "TEXT" in done.stdout or "PATH" in done.stdout or "INTEGER" in done.stdout


def test_run_help_shows_each_kind_of_value():
    done = subprocess.run([ASSAY, "run", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"}, check=True)
    for placeholder in ("SPEC", "PATH", "TEXT", "INTEGER", "FLOAT"):
        assert placeholder in done.stdout
