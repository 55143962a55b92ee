"""Which of the driver's modules travel with the tasks, their code included.

A suite file Assay executed, the modules beside it and a project's own packages are not
installed on a cluster's workers: they are pickled by value (their code with the
functions that use them). What the interpreter has installed (the standard library,
site-packages) and Assay itself are imported on the workers by name, as usual.
"""

from __future__ import annotations

import contextlib
import site
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any


@contextlib.contextmanager
def shipped_by_value(pickler: Any) -> Iterator[tuple[str, ...]]:
    """Register the project's modules with ``pickler`` (Ray's cloudpickle) while inside."""
    modules = project_modules()
    for module in modules:
        pickler.register_pickle_by_value(module)
    try:
        yield tuple(module.__name__ for module in modules)
    finally:
        for module in modules:
            with contextlib.suppress(ValueError):
                pickler.unregister_pickle_by_value(module)


def project_modules() -> list[ModuleType]:
    """Loaded top-level modules whose source lies outside the interpreter's installation."""
    installed = _installed_roots()
    found = []
    for name, module in list(sys.modules.items()):
        if "." in name or name in ("assay_agents", "__main__") or name in sys.stdlib_module_names:
            continue
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py"):
            continue
        path = Path(file).resolve()
        if not any(path.is_relative_to(root) for root in installed):
            found.append(module)
    return found


def _installed_roots() -> tuple[Path, ...]:
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages()}
    places.update(value for value in sysconfig.get_paths().values() if value)
    user = site.getusersitepackages()
    if isinstance(user, str):
        places.add(user)
    return tuple(Path(place).resolve() for place in places)
