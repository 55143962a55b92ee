"""A directory of item files (TOML or JSON) is a suite; ``suite.toml`` holds its settings.

Each item is one scenario: a starting state (``[setup]``, opaque JSON for the harness), the
turn a person takes (``[input]``: text, or a reply to a pending interaction), and what must be
true afterwards (``[expect]``, ``[expect.forbid]``, whose ``tools`` forbids tool calls without
any channel). The loader is strict: unknown fields and combinations that parse but mean
nothing are refused, naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.limits import MAX_ITEM_FILES
from assay_agents.load._documents import parse_json, parse_toml, read_text
from assay_agents.load._errors import validate
from assay_agents.load.formats import ItemModel
from assay_agents.load.scenario import Expectations, api_fixtures
from assay_agents.load.settings import (
    ITEM_PARTS,
    SUITE_FILE,
    SuiteSettings,
    entry_problem,
    expand_provenance,
    read_settings,
)
from assay_agents.spec import JSON, Case, Suite
from assay_agents.spec.case import build_case
from assay_agents.text import suggestion

ITEM_SUFFIXES = (".toml", ".json")
#: The key of ``[expect.forbid]`` that lists tools not to call; every other key is a channel.
FORBID_TOOLS = "tools"

# Where a case field lives in an item file, for errors raised while building the case.
_ITEM_FIELDS = (
    ("expected_actions", "expect.actions"),
    ("expected", "expect.answer"),
    ("observation", "expect"),
    ("forbid", "expect.forbid"),
    ("criteria", "judge"),
    ("reply", "input.reply"),
    ("input", "input.text"),
    ("checks", "expect"),
)


@dataclass(frozen=True, slots=True)
class Item:
    """One validated item file: its model and the observation channels it asserts."""

    path: Path
    model: ItemModel
    channels: dict[str, list[JSON]]

    @property
    def location(self) -> str:
        """How errors name the file."""
        return str(self.path)


def load_items(
    directory: str | Path,
    *,
    agent: Any = None,
    agent_name: str | None = None,
    imports: bool = True,
    only: str | Path | None = None,
) -> Suite:
    """Load a directory of item files as a suite (settings from its ``suite.toml``).

    Without ``imports`` the agent or harness ``suite.toml`` names is not imported. ``only``
    (one item file of the folder) makes a suite of that item alone, with the folder's
    settings.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise SpecError("is not a directory of item files", location=str(folder))
    settings = read_settings(folder)
    paths = item_paths(folder) if only is None else _one_item(Path(only), folder)
    suite = settings.suite(agent=agent, agent_name=agent_name, imports=imports)
    seen: dict[str, str] = {}
    broken: list[SpecError] = []
    for position, path in enumerate(paths):
        # Every item file is read: a broken one is listed with the others, not the first alone.
        try:
            _load_item(suite, path, position, settings, seen)
        except SpecError as error:
            broken.append(error)
    if len(broken) == 1:
        raise broken[0]
    if broken:
        raise SpecError(
            f"{len(broken)} item files are broken:\n" + "\n".join(f"  {error}" for error in broken),
            location=str(folder),
        )
    return suite


def _load_item(
    suite: Suite, path: Path, position: int, settings: SuiteSettings, seen: dict[str, str]
) -> None:
    item = read_item(path, settings)
    if item.model.id in seen:
        raise SpecError(
            f"duplicate id {item.model.id!r} (also in {seen[item.model.id]})",
            location=item.location,
            field="id",
        )
    seen[item.model.id] = path.name
    _add(suite, item_case(item, position), item.location)


def item_paths(folder: Path) -> list[Path]:
    """The item files of a folder (not its subfolders), in name order.

    Whatever is named like an item file must be one: each that is not (see
    :func:`entry_problem`) is named in one error, rather than skipped.
    """
    paths = sorted(_named_like_items(folder))
    root = folder.resolve()
    problems = [
        (path, problem) for path in paths if (problem := entry_problem(path, root)) is not None
    ]
    if len(problems) == 1:
        raise SpecError(problems[0][1], location=str(problems[0][0]))
    if problems:
        raise SpecError(
            "holds entries named like item files that are not: "
            + "; ".join(f"{path.name} {problem}" for path, problem in problems),
            location=str(folder),
        )
    if not paths:
        raise SpecError("holds no item files (*.toml or *.json)", location=str(folder))
    return paths


def _named_like_items(folder: Path) -> list[Path]:
    """The entries named like item files, refused once past the bound (none is read yet)."""
    named: list[Path] = []
    for path in folder.iterdir():
        if path.suffix not in ITEM_SUFFIXES or path.name == SUITE_FILE:
            continue
        if len(named) == MAX_ITEM_FILES:
            raise SpecError(
                f"holds more than {MAX_ITEM_FILES:,} item files; split it into several suites",
                location=str(folder),
            )
        named.append(path)
    return named


def _one_item(path: Path, folder: Path) -> list[Path]:
    if path.suffix not in ITEM_SUFFIXES or path.name == SUITE_FILE:
        raise SpecError("is not an item file (*.toml or *.json)", location=str(path))
    problem = entry_problem(path, folder.resolve())
    if problem is not None:
        raise SpecError(problem, location=str(path))
    return [path]


def read_item(path: Path, settings: SuiteSettings) -> Item:
    """Parse and validate one item file strictly."""
    location = str(path)
    text = read_text(path)
    raw = parse_toml(text, location) if path.suffix == ".toml" else parse_json(text, location)
    raw, channels = _split_channels(raw, settings.channels)
    model = validate(ItemModel, raw, location, extra_names={"expect": settings.channels})
    item = Item(path, model, _channel_lists(channels, location))
    _check(item, settings)
    return item


def item_case(item: Item, position: int) -> Case:
    """The case an item becomes."""
    model, expect = item.model, item.model.expect
    reply = model.input.reply
    try:
        return build_case(
            model.input.text,
            position=position,
            id=model.id,
            name=model.name or model.id,
            reply=None if reply is None else reply.model_dump(exclude_none=True),
            expected=None if expect is None else expect.answer,
            expected_actions=None
            if expect is None or expect.actions is None
            else [action.model_dump() for action in expect.actions],
            checks=_checks(item) or None,
            criteria=model.judge or None,
            setup=model.setup,
            group=model.group,
            tags=model.tags,
            params=model.params,
            notes=model.notes,
            production_only=model.production_only,
            observation=item.channels or None,
            forbid=_forbidden_channels(item),
            api=None if model.api is None else api_fixtures(model.api, item.path.parent),
            provenance=_provenance(item),
            metadata=_effects(model) or None,
        )
    except SpecError as error:
        raise SpecError(
            error.detail, location=item.location, field=_item_field(error.field)
        ) from None


def _effects(model: ItemModel) -> dict[str, JSON]:
    """What the item says its scenario commits, where the judge reads it (case metadata)."""
    declared: dict[str, JSON] = {}
    if model.committed_effects is not None:
        declared["committed_effects"] = list(model.committed_effects)
    if model.committed_effects_channel is not None:
        declared["committed_effects_channel"] = model.committed_effects_channel
    return declared


def _add(suite: Suite, case: Case, location: str) -> None:
    try:
        suite.add(case)
    except SpecError as error:
        raise SpecError(error.detail, location=location, field=_item_field(error.field)) from None


def _split_channels(raw: Any, channels: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """Take the declared channels out of ``[expect]``; the model validates the rest."""
    if not isinstance(raw, dict) or not isinstance(raw.get("expect"), dict):
        return raw, {}
    expect = dict(raw["expect"])
    taken = {name: expect.pop(name) for name in list(expect) if name in channels}
    return {**raw, "expect": expect}, taken


def _channel_lists(channels: Mapping[str, Any], location: str) -> dict[str, list[JSON]]:
    for name, items in channels.items():
        if not isinstance(items, list):
            raise SpecError(
                "must be a list ([] asserts that nothing was recorded)",
                location=location,
                field=f"expect.{name}",
            )
    return dict(channels)


def _check(item: Item, settings: SuiteSettings) -> None:
    """Refuse combinations that parse but mean nothing."""
    model, where = item.model, item.location
    if (model.input.text is None) == (model.input.reply is None):
        detail = (
            "needs text or a reply to a pending interaction"
            if model.input.text is None
            else "has both text and a reply; a turn is one or the other"
        )
        raise SpecError(detail, location=where, field="input")
    channel = model.committed_effects_channel
    if channel is not None and model.committed_effects is not None:
        raise SpecError(
            "declares committed_effects and a channel to read them from; give one or the other",
            location=where,
            field="committed_effects_channel",
        )
    if channel is not None and channel not in settings.channels:
        hint = suggestion(channel, settings.channels) or (
            " (declare the harness's channels in suite.toml: channels = [...])"
        )
        raise SpecError("unknown channel" + hint, location=where, field="committed_effects_channel")
    forbid = {} if model.expect is None else model.expect.forbid or {}
    for channel, banned in forbid.items():
        if channel == FORBID_TOOLS:
            _check_forbidden_tools(item, banned)
            continue
        if channel not in settings.channels:
            hint = suggestion(channel, (*settings.channels, FORBID_TOOLS)) or (
                " (declare the harness's channels in suite.toml: channels = [...])"
            )
            raise SpecError(
                "unknown channel" + hint, location=where, field=f"expect.forbid.{channel}"
            )
        if not banned:
            raise SpecError(
                "an empty forbid list forbids nothing",
                location=where,
                field=f"expect.forbid.{channel}",
            )


def _check_forbidden_tools(item: Item, banned: list[Any]) -> None:
    where, field = item.location, f"expect.forbid.{FORBID_TOOLS}"
    if not banned:
        raise SpecError("an empty forbid list forbids nothing", location=where, field=field)
    for index, name in enumerate(banned):
        if not isinstance(name, str) or not name.strip():
            raise SpecError(
                "must be a tool name (a non-empty string)",
                location=where,
                field=f"{field}[{index}]",
            )
    both = _expectations(item).both_expected_and_forbidden()
    if both:
        raise SpecError(
            f"{', '.join(both)} is both expected (expect.tools) and forbidden; "
            "a case cannot require and forbid the same call",
            location=where,
            field=field,
        )


def _forbidden_channels(item: Item) -> dict[str, list[JSON]] | None:
    """``[expect.forbid]`` without ``tools``: what the observation channels must not hold."""
    expect = item.model.expect
    if expect is None or expect.forbid is None:
        return None
    channels = {key: value for key, value in expect.forbid.items() if key != FORBID_TOOLS}
    return channels or None


def _expectations(item: Item) -> Expectations:
    expect = item.model.expect
    if expect is None:
        return Expectations()
    tools = (expect.forbid or {}).get(FORBID_TOOLS) or ()
    return Expectations(
        tuple(expect.tools or ()),
        tuple(expect.contains or ()),
        tuple(expect.not_contains or ()),
        forbid_tools=tuple(str(name) for name in tools),
    )


def _checks(item: Item) -> list[Any]:
    return _expectations(item).checks()


def _provenance(item: Item) -> dict[str, str] | None:
    declared = item.model.provenance
    if not declared:
        return None
    expanded = expand_provenance(declared, item.location, "provenance")
    present = _present_parts(item)
    for part in declared:
        if not present.intersection(ITEM_PARTS[part]):
            raise SpecError(
                f"declares the provenance of {part}, which this item does not have",
                location=item.location,
                field=f"provenance.{part}",
            )
    # Every part the declaration names is kept, present or not, so that an expectation a later
    # run adds under the same declaration is covered by it.
    return expanded


def _present_parts(item: Item) -> set[str]:
    model, expect = item.model, item.model.expect
    present = {"input"}
    if _checks(item):
        present.add("checks")
    if expect is not None:
        present |= {
            part
            for part, value in (
                ("reference", expect.answer),
                ("expected_actions", expect.actions),
                ("forbid", _forbidden_channels(item)),
            )
            if value is not None
        }
    if item.channels:
        present.add("observation")
    present |= {
        part
        for part, value in (
            ("setup", model.setup),
            ("api", model.api),
            ("params", model.params or None),
        )
        if value is not None
    }
    return present


def _item_field(field: str | None) -> str | None:
    if field is None:
        return None
    for case_name, item_name in _ITEM_FIELDS:
        if field == case_name or field.startswith((case_name + ".", case_name + "[")):
            return item_name + field[len(case_name) :]
    return field
