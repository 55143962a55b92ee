"""The suites a path holds: a Python spec file executed as a module, or a file suite.

A Python spec file is trusted code, executed as a module; every other format is read by
:func:`assay_agents.load.load_path`, which also applies the selection of cases.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from assay_agents.errors import SpecError
from assay_agents.spec import Suite

if TYPE_CHECKING:
    from assay_agents.load.source import Source


def load_suites(path: Path, source: Source | None = None) -> list[Suite]:
    """The suites at ``path``: those a Python file defines, in order, or the one suite made.

    A YAML suite, catalog, directory of items or pasted text makes one suite, and
    ``source`` chooses the product, set, agent and cases.
    """
    if path.suffix != ".py":
        from assay_agents.load.paths import load_path

        return [load_path(path, source)]
    if not path.is_file():
        raise SpecError("no such file", location=str(path))
    module = _execute(path)
    suites = _unique(value for value in vars(module).values() if isinstance(value, Suite))
    if not suites:
        raise SpecError("defines no assay.Suite at module level", location=str(path))
    return suites


def pick_suite(suites: list[Suite], name: str | None, path: Path) -> Suite:
    """The one suite to run: the only one, or the one ``--suite`` names."""
    names = ", ".join(repr(suite.name) for suite in suites)
    if name is None:
        if len(suites) > 1:
            raise SpecError(
                f"defines several suites ({names}); choose one with --suite", location=str(path)
            )
        return suites[0]
    for suite in suites:
        if suite.name == name:
            return suite
    raise SpecError(f"has no suite named {name!r} (it defines {names})", location=str(path))


def _execute(path: Path) -> ModuleType:
    resolved = path.resolve()
    name = "assay_spec_" + hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise SpecError("cannot be imported", location=str(path))
    module = importlib.util.module_from_spec(spec)
    # The spec's own folder is importable, as it would be for `python spec.py`.
    sys.path.insert(0, str(resolved.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SpecError as error:
        raise SpecError(f"{error}{_line(error, resolved)}", location=str(path)) from None
    except Exception as error:
        raise SpecError(
            f"could not be imported{_line(error, resolved)}: "
            f"{type(error).__name__}: {error}{_searched(error)}",
            location=str(path),
        ) from None
    finally:
        sys.path.remove(str(resolved.parent))
    return module


def _searched(error: Exception) -> str:
    """Where a missing module was looked for: the folders a user can put it in."""
    if not isinstance(error, ModuleNotFoundError):
        return ""
    # The suite's folder and the project root come first (see project.importable_project).
    folders = list(dict.fromkeys(sys.path[:2]))
    return (
        f" (searched {' and '.join(folders)}, then the installed packages; the project "
        "root is the folder of assay.toml, of a pyproject.toml with [tool.assay], or of "
        ".assay/)"
    )


def _line(error: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return f" (line {frames[-1].lineno})" if frames else ""


def _unique(values: object) -> list[Suite]:
    seen: list[Suite] = []
    for value in values:  # type: ignore[attr-defined]
        if not any(value is other for other in seen):
            seen.append(value)
    return seen
