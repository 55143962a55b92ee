"""promptfoo configurations: ``prompts``, and ``tests`` with their ``vars`` and ``assert``.

With exactly one prompt the test's vars fill its ``{{var}}`` placeholders and the result is
the scenario's prompt; otherwise the vars are the prompt (a lone var's value, or one
``name: value`` line each), and the import says why. ``defaultTest`` vars and assertions
apply to every test, as promptfoo applies them.

A part that would change what is checked is named as not mapped rather than dropped
silently: an ``options.transform`` (the assertions that would see the transformed output
are left out), a test ``threshold`` (promptfoo passes on a weighted score; every Assay check
must pass), an assertion of ``weight: 0`` (informational in promptfoo), a ``file://`` var
(never read), an empty list of texts, and a ``regex`` pattern that nests a quantifier inside
a quantified group (``(a+)+``), which can take exponential time to fail.
"""

from __future__ import annotations

import re
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load.datasets._common import Draft, Keys, Unmapped, mapping, text_of

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_TEMPLATE_SYNTAX = ("{{", "{%")
# promptfoo assertion type -> the expectation list each of its texts goes to.
_TEXT_LISTS = {
    "contains": "contains",
    "icontains": "icontains",
    "contains-all": "contains",
    "icontains-all": "icontains",
    "contains-any": "contains_any",
    "icontains-any": "icontains_any",
    "not-contains": "not_contains",
    "regex": "regex",
}
_LISTED = frozenset({"contains-all", "icontains-all", "contains-any", "icontains-any"})
_KNOWN_TEST_KEYS = frozenset({"description", "vars", "assert", "metadata", "options"})
_DEFAULT_TEST_KEYS = frozenset({"vars", "assert", "options"})
_THRESHOLD = (
    "promptfoo passes the test when its assertions' weighted score reaches it; "
    "Assay requires every check to pass"
)
_TRANSFORMED = "it checks the output after options.transform, which Assay does not apply"
# A group holding a quantifier, itself quantified: (a+)+, (\w*x)*, (a|b+){2,}. Such a
# pattern can take exponential time to fail, so it is named rather than copied.
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)[*+{]")
_SETTINGS = {
    "providers": "the agent is given to assay-agents run (--agent)",
    "scenarios": "Assay has no field for it (import each scenario's tests as tests)",
    "redteam": "Assay has no field for it",
}
_WHY_NOT = {
    "similar": "Assay has no embedding-similarity check; a judge rubric or reference can stand in",
    "javascript": (
        "its code runs in promptfoo; write it as a custom check (assay_agents.checks.custom)"
    ),
    "python": "its code runs in promptfoo; write it as a custom check (assay_agents.checks.custom)",
    "cost": "Assay prices runs from token counts; use token_budget in Python",
    "factuality": "give the reference as the scenario's answer and grade it with a judge",
}


def promptfoo(data: object, location: str, keys: Keys) -> tuple[list[Draft], list[Unmapped]]:
    """The scenarios a promptfoo configuration's tests make, and what could not be mapped."""
    config = mapping(data, location, "", "a promptfoo configuration (a mapping with tests)")
    unmapped = [Unmapped(name, _SETTINGS[name]) for name in _SETTINGS if config.get(name)]
    template = _template(config.get("prompts"), unmapped)
    defaults = _default_test(config.get("defaultTest"), location, unmapped)
    tests = config.get("tests")
    if isinstance(tests, str | dict):
        unmapped.append(Unmapped("tests", "tests read from another file are not mapped"))
        tests = []
    if not isinstance(tests, list):
        raise SpecError("is missing or not a list of tests", location=location, field="tests")
    drafts = []
    for index, test in enumerate(tests):
        path = f"tests[{index}]"
        if isinstance(test, str):
            unmapped.append(Unmapped(path, f"{test!r}: tests from another file are not mapped"))
            continue
        test = mapping(test, location, path, "a test (a mapping with vars and assert)")
        draft = _draft(test, defaults, template, path, location, unmapped)
        draft.key = keys.key(test.get("description"), index + 1)
        drafts.append(draft)
    return drafts, unmapped


def _template(prompts: object, unmapped: list[Unmapped]) -> str | None:
    """The one inline prompt template, or ``None`` (saying why) when there is not one."""
    listed = [prompts] if isinstance(prompts, str) else prompts
    if isinstance(listed, list) and len(listed) == 1:
        only = listed[0]
        raw = only.get("raw") if isinstance(only, dict) else only
        if isinstance(raw, str) and not raw.startswith("file://"):
            return raw
        unmapped.append(Unmapped("prompts[0]", "a prompt read from a file is not mapped"))
    elif not listed:
        unmapped.append(Unmapped("prompts", "no prompt: each scenario's prompt is its vars"))
    else:
        count = len(listed) if isinstance(listed, list | dict) else 1
        unmapped.append(
            Unmapped(
                "prompts",
                f"{count} prompts: each scenario's prompt is its vars, not a template "
                "(import once per prompt to keep them)",
            )
        )
    return None


def _default_test(value: object, location: str, unmapped: list[Unmapped]) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        unmapped.append(Unmapped("defaultTest", "a default test read from a file is not mapped"))
        return {}
    defaults = mapping(value, location, "defaultTest", "a default test (vars and assert)")
    if "threshold" in defaults:
        unmapped.append(Unmapped("defaultTest.threshold", _THRESHOLD))
    for name in sorted(set(defaults) - _DEFAULT_TEST_KEYS - {"threshold"}):
        unmapped.append(Unmapped(f"defaultTest.{name}", "Assay has no field for it"))
    _options(defaults, "defaultTest", unmapped)
    return defaults


def _options(test: dict[str, Any], path: str, unmapped: list[Unmapped]) -> bool:
    """Name a test's ``options`` as not mapped; whether they transform the output."""
    options = test.get("options")
    if not options:
        return False
    transformed = isinstance(options, dict) and "transform" in options
    if transformed:
        unmapped.append(
            Unmapped(
                f"{path}.options.transform",
                "Assay does not transform the output: the assertions that would have seen "
                "the transformed output are not mapped (below)",
            )
        )
    rest = sorted(set(options) - {"transform"}) if isinstance(options, dict) else ["options"]
    if rest:
        unmapped.append(Unmapped(f"{path}.options", f"Assay has no field for {', '.join(rest)}"))
    return transformed


def _draft(
    test: dict[str, Any],
    defaults: dict[str, Any],
    template: str | None,
    path: str,
    location: str,
    unmapped: list[Unmapped],
) -> Draft:
    for name in sorted(set(test) - _KNOWN_TEST_KEYS):
        why = _THRESHOLD if name == "threshold" else "Assay has no field for it"
        unmapped.append(Unmapped(f"{path}.{name}", why))
    transformed = "transform" in (defaults.get("options") or {}) or _options(test, path, unmapped)
    variables = {
        **mapping(defaults.get("vars") or {}, location, "defaultTest.vars", "a mapping"),
        **mapping(test.get("vars") or {}, location, f"{path}.vars", "a mapping of vars"),
    }
    for name, value in variables.items():
        if isinstance(value, str) and value.startswith("file://"):
            unmapped.append(
                Unmapped(
                    f"{path}.vars.{name}",
                    "the file it refers to was not read: the prompt holds the reference as text",
                )
            )
        if isinstance(value, list):
            unmapped.append(
                Unmapped(
                    f"{path}.vars.{name}",
                    "a list of values (one test per value in promptfoo) is kept as one JSON text",
                )
            )
    prompt = _prompt(template, variables, path, unmapped)
    if not prompt.strip():
        raise SpecError(
            "makes an empty prompt (no vars and no prompt)", location=location, field=path
        )
    description = test.get("description")
    draft = Draft(
        "",
        prompt,
        notes=description if isinstance(description, str) else None,
        params=test.get("metadata") if isinstance(test.get("metadata"), dict) else None,
    )
    asserts = [
        ("defaultTest.assert", defaults.get("assert")),
        (f"{path}.assert", test.get("assert")),
    ]
    for where, listed in asserts:
        if listed is None:
            continue
        if not isinstance(listed, list):
            raise SpecError("must be a list of assertions", location=location, field=where)
        for index, assertion in enumerate(listed):
            at = f"{where}[{index}]"
            found = mapping(assertion, location, at, "an assertion (type and value)")
            if transformed and "transform" not in found:
                unmapped.append(Unmapped(at, f"{found.get('type')}: {_TRANSFORMED}"))
                continue
            _assertion(found, variables, draft, at, location, unmapped)
    return draft


def _prompt(
    template: str | None, variables: dict[str, Any], path: str, unmapped: list[Unmapped]
) -> str:
    if template is not None:
        return _rendered(template, variables, path, unmapped)
    if len(variables) == 1:
        return text_of(next(iter(variables.values())))
    return "\n".join(f"{name}: {text_of(value)}" for name, value in variables.items())


def _rendered(text: str, variables: dict[str, Any], path: str, unmapped: list[Unmapped]) -> str:
    """``text`` with each ``{{var}}`` replaced; anything else of the template syntax is kept."""
    rendered = _PLACEHOLDER.sub(
        lambda found: (
            text_of(variables[found.group(1)]) if found.group(1) in variables else found.group(0)
        ),
        text,
    )
    if any(syntax in rendered for syntax in _TEMPLATE_SYNTAX):
        unmapped.append(
            Unmapped(path, "template syntax beyond {{var}} (or an unknown var) kept as written")
        )
    return rendered


def _assertion(
    assertion: dict[str, Any],
    variables: dict[str, Any],
    draft: Draft,
    at: str,
    location: str,
    unmapped: list[Unmapped],
) -> None:
    kind = assertion.get("type")
    if not isinstance(kind, str) or not kind:
        raise SpecError("is missing (the assertion's type)", location=location, field=f"{at}.type")
    if "transform" in assertion:
        unmapped.append(Unmapped(at, f"{kind}: an assertion on transformed output is not mapped"))
        return
    if assertion.get("weight") == 0:
        unmapped.append(Unmapped(at, f"{kind}: weight 0 is informational in promptfoo"))
        return
    value = assertion.get("value")
    if isinstance(value, str):
        value = _PLACEHOLDER.sub(
            lambda found: text_of(variables.get(found.group(1), found.group(0))), value
        )
    why = _mapped(kind, value, assertion.get("threshold"), draft)
    if why is not None:
        unmapped.append(Unmapped(at, f"{kind}: {why}"))


def _mapped(kind: str, value: Any, threshold: Any, draft: Draft) -> str | None:
    """Put the assertion on ``draft``; ``None`` when mapped, else why it is not."""
    if kind in _TEXT_LISTS:
        texts = value if kind in _LISTED else [value]
        if not isinstance(texts, list) or not all(isinstance(t, str) and t for t in texts):
            return "its value is not text" + (" (a list)" if kind in _LISTED else "")
        if not texts:
            return "its list of texts is empty"
        if kind == "regex" and _NESTED_QUANTIFIER.search(texts[0]):
            return (
                "its pattern nests a quantifier inside a quantified group, which can take "
                "exponential time to fail; rewrite it without the nesting"
            )
        draft.add(_TEXT_LISTS[kind], *texts)
        return None
    if kind == "equals":
        if not isinstance(value, str) or "equals" in draft.expect:
            return "only one text a test's output equals is kept"
        draft.expect["equals"] = value
        return (
            "mapped, but Assay's equals ignores whitespace around the answer; "
            "promptfoo compares exactly"
        )
    if kind == "latency":
        if not _number(threshold) or threshold < 1:
            return "it needs a threshold of at least 1 millisecond"
        draft.expect["max_latency_ms"] = threshold
        return None
    if kind == "llm-rubric":
        return _rubric(value, threshold, draft)
    if kind.startswith("not-"):
        return "Assay has no negated form of it"
    return _WHY_NOT.get(kind, "Assay has no check for it")


def _rubric(value: Any, threshold: Any, draft: Draft) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "its rubric is not text"
    if threshold is None:
        draft.rubrics.append(value)
    elif _number(threshold) and 0 <= threshold <= 1:
        draft.rubrics.append({"rubric": value, "threshold": threshold})
    else:
        return "its threshold is not a score from 0 to 1"
    return None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
