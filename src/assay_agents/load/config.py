"""Project configuration: ``[tool.assay]`` in ``pyproject.toml``, or ``assay.toml``.

Found the way git finds ``.git``: the nearest such file from the working directory upwards,
never in or above a folder that another user could have written into (see
:mod:`assay_agents.trust`).
It holds a project's defaults, which a command-line flag or an ``ASSAY_*`` environment
variable overrides:

.. code-block:: toml

    [tool.assay]                 # in assay.toml: the same keys at the top level
    database = "sqlite:///.assay/assay.db"   # relative paths are relative to this file
    concurrency = 16
    concurrency_floor = 2        # rate limits never take a model below this
    concurrency_ceiling = 32     # ... nor successes above this (default: its start)
    rate_limit_retries = 6       # per sample
    judge = "openai/gpt-4.1-mini"
    judge_base_url = "http://localhost:8000/v1"   # the endpoint of a judge named by name
    gate = { min_pass_rate = 0.9 }
    baseline_where = { branch = "main" }     # the automatic baseline: runs of main only
    trace = true                 # assay-agents run exports its spans (as --trace does)
    cache = true                 # judge calls answered from the cache (as --cache does)

A file that is not valid TOML, an unknown key or a value of the wrong type is an error that
names the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.limits import bounded

#: The keys a project configuration may set, and their types.
KEYS: dict[str, type | tuple[type, ...]] = {
    "database": str,
    "concurrency": int,
    "concurrency_floor": int,
    "concurrency_ceiling": int,
    "rate_limit_retries": int,
    "judge": str,
    "judge_base_url": str,
    "gate": dict,
    "baseline_where": dict,
    "trace": bool,
    "cache": bool,
}


_KINDS: dict[type | tuple[type, ...], str] = {
    str: "a string",
    int: "a whole number",
    dict: "a table",
    bool: "true or false",
}


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """A project's defaults and the file they came from (``None``: no file was found)."""

    path: Path | None = None
    database: str | None = None
    concurrency: int | None = None
    #: How each model's concurrency adapts to rate limits (a suite's own setting wins).
    concurrency_floor: int | None = None
    concurrency_ceiling: int | None = None
    rate_limit_retries: int | None = None
    judge: str | None = None
    #: Where a judge named by ``--judge`` or ``judge`` is called (``--judge-base-url``).
    judge_base_url: str | None = None
    gate: dict[str, Any] = field(default_factory=dict)
    #: Run metadata the automatic baseline must match (``--baseline-where`` replaces it).
    baseline_where: dict[str, str] = field(default_factory=dict)
    #: Whether ``assay-agents run`` exports its spans (``--trace``/``--no-trace`` override it).
    trace: bool | None = None
    #: Whether runs answer judge calls from the cache (``--cache``/``--no-cache`` override it).
    cache: bool | None = None

    @property
    def root(self) -> Path | None:
        """The folder of the configuration file: the project's root."""
        return None if self.path is None else self.path.parent

    def database_url(self) -> str | None:
        """The configured database, a relative SQLite path anchored at the project root."""
        if self.database is None or self.root is None:
            return self.database
        prefix = "sqlite:///"
        rest = self.database[len(prefix) :] if self.database.startswith(prefix) else None
        if rest is None or rest.startswith("/") or rest in ("", ":memory:"):
            return self.database
        return f"{prefix}{(self.root / rest).resolve()}"


def find_config(start: Path | None = None) -> ProjectConfig:
    """The nearest configuration from ``start`` (the working directory) upwards.

    The search stops at a folder another user could have written into, naming on standard
    error a configuration it leaves unread there or above.
    """
    from assay_agents.trust import trusted_folders

    for candidate in trusted_folders((start or Path.cwd()).resolve(), _configuration_in):
        found = _read_folder(candidate)
        if found is not None:
            return found
    return ProjectConfig()


def _configuration_in(folder: Path) -> Path | None:
    """The file in ``folder`` that :func:`_read_folder` would read, without parsing it."""
    own = folder / "assay.toml"
    if own.is_file():
        return own
    project = folder / "pyproject.toml"
    try:
        # Only named when it has an Assay table; reading a huge planted file is not worth it.
        if (
            project.is_file()
            and project.stat().st_size < 1 << 20
            and b"tool.assay" in project.read_bytes()
        ):
            return project
    except OSError:
        pass
    return None


def _read_folder(folder: Path) -> ProjectConfig | None:
    own = folder / "assay.toml"
    if own.is_file():
        return _parse(own, _load(own))
    project = folder / "pyproject.toml"
    if project.is_file():
        tool = _load(project).get("tool")
        if isinstance(tool, Mapping) and "assay" in tool:
            return _parse(project, tool["assay"], prefix="tool.assay.")
    return None


def _load(path: Path) -> dict[str, Any]:
    # Bounded like a suite file: the configuration may come with an untrusted checkout.
    from assay_agents.load.documents import read_toml

    document = read_toml(path)
    assert isinstance(document, dict)  # a TOML document is a table
    return document


def _parse(path: Path, data: Any, prefix: str = "") -> ProjectConfig:
    if not isinstance(data, Mapping):
        raise SpecError(
            "must be a table of settings", location=str(path), field=prefix.rstrip(".") or None
        )
    for key, value in data.items():
        expected = KEYS.get(key)
        if expected is None:
            raise SpecError(
                f"unknown setting; known: {', '.join(sorted(KEYS))}",
                location=str(path),
                field=f"{prefix}{key}",
            )
        if isinstance(value, bool) != (expected is bool) or not isinstance(value, expected):
            raise SpecError(
                f"must be {_KINDS.get(expected, 'a value of another type')}",
                location=str(path),
                field=f"{prefix}{key}",
            )
    concurrency = data.get("concurrency")
    if concurrency is not None and concurrency < 1:
        raise SpecError(
            "must be a positive whole number", location=str(path), field=f"{prefix}concurrency"
        )
    if concurrency is not None:
        # The bound of --concurrency: a configuration accepts what the command line does.
        bounded("concurrency", concurrency, location=str(path), field=f"{prefix}concurrency")
    for name in ("concurrency_floor", "concurrency_ceiling", "rate_limit_retries"):
        if data.get(name) is not None:
            bounded(name, data[name], location=str(path), field=f"{prefix}{name}")
    where = dict(data.get("baseline_where") or {})
    for key, value in where.items():
        if not isinstance(value, str):
            raise SpecError(
                "must be a string (run metadata is matched as text)",
                location=str(path),
                field=f"{prefix}baseline_where.{key}",
            )
    return ProjectConfig(
        path=path,
        database=data.get("database"),
        concurrency=concurrency,
        concurrency_floor=data.get("concurrency_floor"),
        concurrency_ceiling=data.get("concurrency_ceiling"),
        rate_limit_retries=data.get("rate_limit_retries"),
        judge=data.get("judge"),
        judge_base_url=data.get("judge_base_url"),
        gate=dict(data.get("gate") or {}),
        baseline_where=where,
        trace=data.get("trace"),
        cache=data.get("cache"),
    )
