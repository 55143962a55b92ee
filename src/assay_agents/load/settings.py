"""``suite.toml``: the settings of a directory of item files, and the agent it names."""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_agents.agent.harness import harness_agent
from assay_agents.errors import SpecError
from assay_agents.load._documents import parse_toml, read_text
from assay_agents.load._errors import validate
from assay_agents.load.entry import (
    MissingAgent,
    UnimportedAgent,
    entry_agent,
    entry_identity,
    instantiate,
    resolve,
)
from assay_agents.load.formats import ExpectModel, SettingsModel
from assay_agents.spec import Suite
from assay_agents.spec.gate import Gate
from assay_agents.spec.metrics import JUDGE_CRITERIA
from assay_agents.text import suggestion

SUITE_FILE = "suite.toml"

#: The parts of an item a provenance is declared for, and the case parts each one covers.
ITEM_PARTS: dict[str, tuple[str, ...]] = {
    "input": ("input",),
    "expect": ("reference", "expected_actions", "observation", "forbid", "checks"),
    "setup": ("setup",),
    "api": ("api",),
    "params": ("params",),
}

# Names a channel cannot take: fields of [expect] and metric names they would collide with.
_RESERVED = frozenset(
    {*ExpectModel.model_fields, "tools_called", "forbid_actions", *JUDGE_CRITERIA}
)


@dataclass(frozen=True, kw_only=True)
class SuiteSettings:
    """What ``suite.toml`` says (every field optional), resolved against its folder."""

    folder: Path
    location: str
    model: SettingsModel = field(default_factory=SettingsModel)
    provenance: dict[str, str] = field(default_factory=dict)

    @property
    def channels(self) -> tuple[str, ...]:
        """The observation channels items may assert."""
        return tuple(self.model.channels)

    def suite(
        self, *, agent: Any = None, agent_name: str | None = None, imports: bool = True
    ) -> Suite:
        """An empty suite with these settings; ``agent`` (a callable) overrides the file's.

        Without ``imports`` the agent or harness the file names is not imported.
        """
        model = self.model
        runner, named = (agent, agent_name) if agent is not None else self._agent(imports)
        gate = None if model.gate is None else Gate(**model.gate.model_dump())
        try:
            return Suite(
                model.name or self.folder.resolve().name,
                agent=runner,
                agent_name=model.agent_name or named,
                version=model.version,
                description=model.description,
                samples=model.samples or 1,
                concurrency=model.concurrency,
                sample_concurrency=model.sample_concurrency,
                concurrency_floor=model.concurrency_floor,
                concurrency_ceiling=model.concurrency_ceiling,
                rate_limit_retries=model.rate_limit_retries,
                votes=model.votes,
                criteria=model.criteria,
                provenance=self.provenance,
                gate=gate,
            )
        except SpecError as error:
            raise SpecError(error.detail, location=self.location, field=error.field) from None

    def _agent(self, imports: bool) -> tuple[Any, str | None]:
        model = self.model
        if model.harness is not None and not imports:
            return UnimportedAgent(model.harness), entry_identity(model.harness, self.folder)
        if model.harness is not None:
            harness = instantiate(
                resolve(model.harness, self.folder, location=self.location, field="harness")
            )
            try:
                return (
                    harness_agent(harness, max_observed=model.max_observed),
                    entry_identity(model.harness, self.folder),
                )
            except SpecError as error:
                raise SpecError(error.detail, location=self.location, field="harness") from None
        if model.agent is not None:
            agent = entry_agent(
                model.agent, self.folder, location=self.location, field="agent", imports=imports
            )
            return agent, entry_identity(model.agent, self.folder)
        return MissingAgent(f"{self.location} (set agent or harness)"), "unspecified"


def read_settings(folder: Path) -> SuiteSettings:
    """The folder's ``suite.toml``, or default settings when it has none."""
    path = folder / SUITE_FILE
    location = str(path)
    if not path.is_symlink() and not path.exists():
        return SuiteSettings(folder=folder, location=str(folder))
    problem = entry_problem(path, folder.resolve())
    if problem is not None:
        raise SpecError(problem, location=location)
    raw = parse_toml(read_text(path), location)
    model = validate(SettingsModel, raw, location)
    _check(model, location)
    provenance = expand_provenance(model.provenance or {}, location, "provenance")
    return SuiteSettings(folder=folder, location=location, model=model, provenance=provenance)


def entry_problem(path: Path, root: Path) -> str | None:
    """Why ``path`` cannot be read as a file of the folder ``root``, or ``None`` when it can.

    A symbolic link must resolve to a file inside the folder, so that a suite never reads
    what its author could not see (``~/.ssh/id_rsa``); links that dangle or loop, and
    directories, FIFOs (which would block the read), sockets and devices are no files.
    """
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except FileNotFoundError:
            return "is a symbolic link to nothing (dangling)"
        except (RuntimeError, OSError):
            return "is a symbolic link loop"
        if not target.is_relative_to(root):
            return f"is a symbolic link to {target}, outside the folder"
    try:
        mode = path.stat().st_mode
    except OSError as error:
        return f"cannot be read: {error}"
    return None if stat.S_ISREG(mode) else f"is {_kind(mode)}, not a file"


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


def expand_provenance(declared: Mapping[str, str], location: str, path: str) -> dict[str, str]:
    """Item part names (``expect``) to the case parts they cover, each with its provenance."""
    expanded: dict[str, str] = {}
    for part, value in declared.items():
        if part not in ITEM_PARTS:
            raise SpecError(
                "unknown part" + suggestion(part, ITEM_PARTS) + "; a provenance "
                f"is declared for {', '.join(ITEM_PARTS)}",
                location=location,
                field=f"{path}.{part}",
            )
        expanded.update(dict.fromkeys(ITEM_PARTS[part], value))
    return expanded


def _check(model: SettingsModel, location: str) -> None:
    if model.agent is not None and model.harness is not None:
        raise SpecError(
            "names both an agent and a harness; a suite runs one",
            location=location,
            field="harness",
        )
    if model.max_observed is not None and model.harness is None:
        raise SpecError(
            "is a ceiling on what a harness reads; it needs harness = ...",
            location=location,
            field="max_observed",
        )
    _check_channels(model.channels, location)


def _check_channels(channels: Sequence[str], location: str) -> None:
    seen: set[str] = set()
    for index, name in enumerate(channels):
        if name in _RESERVED:
            raise SpecError(
                f"{name!r} is a field of [expect] or a metric name, not a channel",
                location=location,
                field=f"channels[{index}]",
            )
        if name in seen:
            raise SpecError(
                f"{name!r} is listed twice", location=location, field=f"channels[{index}]"
            )
        seen.add(name)
