"""Entry points: the agent or harness a file suite names, as ``module:attribute``.

``module`` is an importable module, or a path to a Python file (``../harness.py``)
resolved against the folder of the file that names it. A file next to the suite is loaded
by path under a name of its own, so two suites with a ``harness.py`` each never collide.

Resolving an entry point imports the module, which runs its code. A suite loaded with
``imports=False`` (``assay-agents validate`` without ``--import``) gets an :class:`UnimportedAgent`
instead, which only names it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from assay_agents.errors import ConfigurationError, SpecError


@dataclass(frozen=True, slots=True)
class MissingAgent:
    """Stands in for the agent of a suite whose files name none.

    The suite can still be loaded, validated and listed; running it needs an agent
    (``agent``/``harness`` in the file, or ``--agent``/``--harness`` on the command line).
    """

    source: str

    def __call__(self, value: Any, ctx: Any) -> Any:
        """Refuse to run: there is no agent to call."""
        raise ConfigurationError(f"{self.source} names no agent; give it one")


@dataclass(frozen=True, slots=True)
class UnimportedAgent:
    """Stands in for the agent or harness a file names, when loading imports no code.

    ``entry`` is the ``module:attribute`` the file gives, shown and never executed.
    """

    entry: str

    def __call__(self, value: Any, ctx: Any) -> Any:
        """Refuse to run: the entry point was never imported."""
        raise ConfigurationError(
            f"{self.entry} was not imported; load the suite with imports to run it"
        )


def entry_agent(
    entry: str, base: Path | None, *, location: str, field: str, imports: bool = True
) -> Any:
    """What :func:`resolve` returns, or, without ``imports``, an :class:`UnimportedAgent`."""
    if not imports:
        _split(entry, location, field)
        return UnimportedAgent(entry)
    return resolve(entry, base, location=location, field=field)


def resolve(entry: str, base: Path | None, *, location: str, field: str) -> Any:
    """The object ``module:attribute`` names (``attribute`` may be dotted)."""
    module_name, attribute = _split(entry, location, field)
    module = _module(module_name, base, location, field)
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise SpecError(
                f"{entry!r}: {module_name} has no attribute {attribute!r}",
                location=location,
                field=field,
            ) from None
    return value


def entry_identity(entry: str, base: Path | None) -> str:
    """The agent identity ``entry`` stands for: its module as Python would import it.

    ``agents/support.py:agent``, ``./agents/support.py:agent`` and ``agents.support:agent``
    name one agent, so they make one history: a file is named by its dotted path under the
    first ``sys.path`` folder that holds it (the project root, for ``assay-agents``) or under the
    working directory, else by its absolute path. An installed module keeps its name; an
    entry that is not ``module:attribute`` (or names no file) is kept as written.
    """
    module_name, _, attribute = entry.rpartition(":")
    if not module_name or not attribute:
        return entry
    try:
        path = _local_file(module_name, base)
    except SpecError:
        return entry
    if path is None:
        return f"{module_name}:{attribute}"
    return f"{_dotted(path)}:{attribute}"


def _dotted(path: Path) -> str:
    # The working directory last: a library caller's suite is named from where it runs.
    for folder in (*sys.path, "."):
        try:
            relative = path.relative_to(Path(folder or ".").resolve())
        except (ValueError, OSError):
            continue
        parts = relative.with_suffix("").parts
        if parts and all(part.isidentifier() for part in parts):
            return ".".join(parts)
    return path.as_posix()


def _split(entry: str, location: str, field: str) -> tuple[str, str]:
    module_name, _, attribute = entry.rpartition(":")
    if not module_name or not attribute:
        raise SpecError(
            f"{entry!r} is not an entry point (module:attribute)", location=location, field=field
        )
    return module_name, attribute


def instantiate(value: Any) -> Any:
    """A class names its instance (made with no arguments); anything else is used as is."""
    return value() if isinstance(value, type) else value


def _module(name: str, base: Path | None, location: str, field: str) -> ModuleType:
    try:
        path = _local_file(name, base)
        if path is not None:
            return _load_file(path)
        return _import(name, base or Path.cwd())
    except SpecError as error:
        raise SpecError(error.detail, location=location, field=field) from None
    except Exception as error:
        raise SpecError(
            f"cannot import {name!r}: {type(error).__name__}: {error}",
            location=location,
            field=field,
        ) from None


def _local_file(name: str, base: Path | None) -> Path | None:
    folder = base or Path.cwd()
    if name.endswith(".py"):
        path = (folder / name).resolve()
        if not path.is_file():
            raise SpecError(f"no such file: {path}")
        return path
    candidate = folder / (name.replace(".", "/") + ".py")
    return candidate.resolve() if candidate.is_file() else None


def _import(name: str, folder: Path) -> ModuleType:
    # A package next to the suite is importable too; installed modules as usual.
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


def _load_file(path: Path) -> ModuleType:
    name = "assay_entry_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SpecError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # The file's folder is importable while it runs, as for `python file.py`.
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module
