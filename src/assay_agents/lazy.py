"""Package attributes that load their module on first use (PEP 562).

A package lists where each public name lives; importing the package then costs nothing of
those modules. A name that is a submodule of the package (``assay_agents.load.paths``) resolves to
the submodule, as it did when the package imported it eagerly.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps each name to its module."""
    # Names known to be neither: probes (hasattr) do not search the disk again.
    absent: set[str] = set()

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is not None:
            loaded = importlib.import_module(home)
            # A lazy submodule ("agents", "judges") is the module itself, not one of its names.
            value = loaded if home == f"{package}.{name}" else getattr(loaded, name)
        elif (
            name not in absent
            and not name.startswith("__")
            and importlib.util.find_spec(f"{package}.{name}")
        ):
            value = importlib.import_module(f"{package}.{name}")
        else:
            absent.add(name)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        vars(sys.modules[package])[name] = value
        return value

    return __getattr__
