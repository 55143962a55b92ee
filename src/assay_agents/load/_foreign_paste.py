"""A text file that is really a structured document is not a list of prompts.

A promptfoo configuration saved as ``.txt`` once read as dozens of prompts (each of its
lines one scenario) and ran. A pasted file that parses as a YAML or JSON mapping with
structure no list of prompts has is refused instead, saying what it looks like.
"""

from __future__ import annotations

from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._documents import depth, parse_json, parse_yaml

#: Headings over bullets (``Orders:`` then ``- Refund: order 42``) nest three deep; a
#: document with tables inside its lists nests deeper.
_LIST_DEPTH = 3
_SCENARIO_KEYS = frozenset({"prompt", "suite", "groups"})


def refuse_foreign_document(text: str, location: str) -> None:
    """Refuse ``text`` when it is a mapping that is neither scenarios nor a grouped suite.

    A JSON mapping is one scenario table, so it must name a prompt; a YAML mapping that is
    not a suite is read as lines, so only one nesting deeper than headings over prompts (or
    one that is another tool's document) is refused.
    """
    data = _mapping(text, location)
    if data is None or _SCENARIO_KEYS & data.keys():
        return
    tool = _tool(data)
    if tool is None and not text.lstrip().startswith("{") and not _structured(data):
        return  # headings and prompts with colons that happen to read as YAML
    if tool is not None:
        what, name = tool
        looks = (
            f"a {what} (assay-agents import-dataset {location} --from {name} "
            "makes an Assay suite of it)"
        )
    else:
        kind = "JSON" if text.lstrip().startswith("{") else "YAML"
        keys = ", ".join(sorted(map(str, data))[:6])
        looks = f"a {kind} mapping with keys {keys} (a YAML suite goes in a .yaml file)"
    raise SpecError(f"is not a list of pasted scenarios: it looks like {looks}", location=location)


def _mapping(text: str, location: str) -> dict[str, Any] | None:
    try:
        parsed = (
            parse_json(text, location)
            if text.lstrip().startswith("{")
            else parse_yaml(text, location)
        )
    except SpecError:
        return None  # not a document: the paste's own reading says what is wrong, if anything
    return parsed if isinstance(parsed, dict) else None


def _structured(data: dict[str, Any]) -> bool:
    """Whether ``data`` nests as no list of prompts does.

    That is a table under a key, a table of several keys inside a list, or anything deeper
    than headings over bulleted prompts.
    """
    if depth(data) > _LIST_DEPTH or any(isinstance(value, dict) for value in data.values()):
        return True
    return any(
        isinstance(item, dict) and len(item) > 1
        for value in data.values()
        if isinstance(value, list)
        for item in value
    )


def _tool(data: dict[str, Any]) -> tuple[str, str] | None:
    """What this mapping looks like and the tool's ``--from`` name, if it is another tool's."""
    if "cases" in data:
        return "pydantic-evals dataset", "pydantic-evals"
    if "tests" in data or ("prompts" in data and "providers" in data):
        return "promptfoo configuration", "promptfoo"
    return None
