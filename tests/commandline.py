"""Running ``assay-agents`` from the tests: in this process, or as the installed script.

In this process a command is the script's ``main`` with the script's own ``sys.argv``, working
directory and environment, and the same standard output, standard error and exit code; what
the command leaves behind in the interpreter (``sys.path`` entries for project roots, a suite's
or a project's modules, signal handlers, environment variables, the working directory) is put
back afterwards, so the next command, in another project with modules of the same names, starts
as a fresh process would.

The real process is kept for what only a process can show: signals, crashes, what the
interpreter does at exit, and the installed entry point itself. Tests that need it are marked
``process``.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import subprocess
import sys
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import typer.testing

#: The installed ``assay-agents`` script, beside the interpreter that runs the tests.
ASSAY = str(Path(sys.executable).with_name("assay-agents"))

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Ran:
    """What one command did: its exit code and what it wrote, as ``subprocess.run`` reports."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def exit_code(self) -> int:
        return self.returncode

    @property
    def output(self) -> str:
        """Both streams, for assertion messages."""
        return self.stdout + self.stderr


def _without_assay_settings(env: Mapping[str, str] | None) -> dict[str, str | None]:
    """The environment a test gives a command: none of the caller's ``ASSAY_*`` settings."""
    overrides: dict[str, str | None] = {k: None for k in os.environ if k.startswith("ASSAY_")}
    overrides.update(env or {})
    return overrides


def run_in_process(args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> Ran:
    """``assay *args`` in ``cwd``, run by the script's ``main`` in this interpreter."""
    from assay_agents.cli.app import main

    words = [str(arg) for arg in args]
    runner = typer.testing.CliRunner()
    with restored_process_state(), runner.isolation(env=_without_assay_settings(env)) as streams:
        os.chdir(cwd)
        # Messages name the program and repeat the command as typed (a --resume hint).
        sys.argv = [ASSAY, *words]
        importlib.invalidate_caches()  # files a test just wrote are importable at once
        code = _exit_code_of(main)
        sys.stdout.flush()
        sys.stderr.flush()
        stdout, stderr = streams[0].getvalue(), streams[1].getvalue()
    return Ran(words, code, _text(stdout), _text(stderr))


def _exit_code_of(main: Callable[[], None]) -> int:
    """The exit code the interpreter would give ``main``: 1 and a traceback for a crash."""
    try:
        main()
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    return 0


def _text(written: bytes) -> str:
    return written.decode("utf-8", "replace").replace("\r\n", "\n")


def run_process(
    args: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> Ran:
    """``assay *args`` in ``cwd``, run by the installed script in a process of its own."""
    words = [str(arg) for arg in args]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    environment.update(env or {})
    done = subprocess.run(
        [ASSAY, *words],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(words, done.returncode, done.stdout, done.stderr)


class Cli:
    """``assay-agents`` commands in one working directory, the way a user types them there."""

    def __init__(self, cwd: Path, *, process: bool = False) -> None:
        self.cwd = cwd
        self.process = process

    def __call__(self, *args: object, env: Mapping[str, str] | None = None) -> Ran:
        words = [str(arg) for arg in args]
        if self.process:
            return run_process(words, self.cwd, env)
        return run_in_process(words, self.cwd, env)

    def json_report(self, *args: object, env: Mapping[str, str] | None = None) -> Any:
        done = self("report", *args, "--format", "json", env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


# Where installed and standard-library code lives: modules from anywhere else (a suite, a
# project's own packages, a test's scratch folder) are the command's, and are forgotten after it.
_LIBRARY_DIRECTORIES = tuple(
    {
        os.path.realpath(path)
        for name in ("stdlib", "platstdlib", "purelib", "platlib")
        if (path := sysconfig.get_paths().get(name))
    }
)


def _is_library(module: ModuleType) -> bool:
    import assay_agents as assay

    places = [getattr(module, "__file__", None), *(getattr(module, "__path__", None) or [])]
    located = [os.path.realpath(place) for place in places if isinstance(place, str)]
    if not located:
        return True  # built into the interpreter
    own = os.path.realpath(Path(assay.__file__).parent)
    return all(place.startswith((*_LIBRARY_DIRECTORIES, own)) for place in located)


_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextmanager
def restored_process_state() -> Iterator[None]:
    """Put back what a command changes in the interpreter, as a process ending would."""
    cwd, argv, path = os.getcwd(), sys.argv[:], sys.path[:]
    environment = dict(os.environ)
    modules = set(sys.modules)
    handlers = {number: signal.getsignal(number) for number in _SIGNALS}
    root = logging.getLogger()
    log_handlers, log_level = root.handlers[:], root.level
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.argv = argv
        sys.path[:] = path
        if dict(os.environ) != environment:
            os.environ.clear()
            os.environ.update(environment)
        _forget_modules(set(sys.modules) - modules)
        for number, handler in handlers.items():
            if handler is not None:
                signal.signal(number, handler)
        root.handlers[:] = log_handlers
        root.setLevel(log_level)


def _forget_modules(names: set[str]) -> None:
    """Drop the modules a command or a test loaded from outside the libraries.

    They are not collected here (a full collection costs about half a second): a suite that
    leaves a file open on purpose closes it in its test, or a later test would hear of it.
    """
    for name in names:
        module = sys.modules.get(name)
        if module is not None and not _is_library(module):
            del sys.modules[name]
