"""What the framework adapters share: a case input as a prompt and history, and model records.

A framework agent takes a prompt and, where it can, earlier turns in its own message form; a
case's input may be text, one message or a message list, and reaches the framework converted,
never as-is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters.framework import text_of
from assay_agents.agent.answered import ANSWERED_MODEL_KEY, same_model
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Usage
from assay_agents.errors import SpecError
from assay_agents.spec import JSON


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier message of the conversation: its role and its text."""

    role: str
    text: str


@dataclass(frozen=True, slots=True)
class Prompt:
    """A case input split into the user's last message and the turns before it."""

    text: str
    history: tuple[Turn, ...] = ()

    def transcript(self) -> str:
        """The whole conversation as one task text, for a framework that takes only text."""
        if not self.history:
            return self.text
        earlier = "\n".join(f"{turn.role}: {turn.text}" for turn in self.history)
        return f"The conversation so far:\n{earlier}\n\nThe user's message:\n{self.text}"


def prompt(value: Any) -> Prompt:
    """The prompt of a case input: text, a message (``role``/``content``) or a message list."""
    if isinstance(value, str):
        return Prompt(value)
    if isinstance(value, Mapping) and "role" in value:
        value = [value]
    if not isinstance(value, list):
        return Prompt(json.dumps(value, ensure_ascii=False))
    turns = [_turn(message, f"input[{index}]") for index, message in enumerate(value)]
    if not turns or turns[-1].role != "user":
        raise SpecError(
            "a message list must end with the user's message, which the agent answers",
            field="input",
        )
    return Prompt(turns[-1].text, tuple(turns[:-1]))


def _turn(message: Any, path: str) -> Turn:
    if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
        raise SpecError("a message needs a role and content", field=path)
    return Turn(message["role"], text_of(message.get("content")))


@dataclass
class Tokens:
    """Tokens summed over a sample's model calls; unknown unless every call reported its own.

    A sum missing some calls would be priced as if it were the whole sample's, so one call
    without usage leaves the sample's usage unknown rather than understated.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    seen: bool = False
    unreported: bool = False

    def add(self, input_tokens: Any, output_tokens: Any) -> None:
        """Count one call's usage; a call reading no tokens at all reported none."""
        if not input_tokens or output_tokens is None:
            self.unreported = True
            return
        self.seen = True
        self.input_tokens += int(input_tokens)
        self.output_tokens += int(output_tokens)

    def usage(self) -> Usage | None:
        """The sample's usage, unpriced (Assay prices it from the model that answered)."""
        if not self.seen or self.unreported:
            return None
        return Usage(self.input_tokens, self.output_tokens)


@dataclass
class Answered:
    """The model the responses named: the asked one when any named it, else the first."""

    asked: str | None
    names: list[str] = field(default_factory=list)

    def add(self, named: Any) -> None:
        """Note the model one response named, if it named one."""
        if isinstance(named, str) and named:
            self.names.append(named)

    def metadata(self) -> dict[str, JSON]:
        """``model`` (the one called) and ``answered_model`` (the one that answered)."""
        found: dict[str, JSON] = {} if self.asked is None else {"model": self.asked}
        if self.names:
            matching = [n for n in self.names if self.asked and same_model(self.asked, n)]
            found[ANSWERED_MODEL_KEY] = (matching or self.names)[0]
        return found


def model_matrix_refused(framework: str, called: str | None, asked: list[str]) -> str:
    """Why a run's models cannot be honoured by an agent whose model cannot be switched."""
    fixed = f"its model {called!r}" if called else "its own model"
    return (
        f"the {framework} agent answers with {fixed} and its model cannot be switched per "
        f"sample, but the run asks for {', '.join(map(repr, asked))} (--model): drop "
        "--model, or build the agent on a model Assay can switch (see the README)"
    )


def providers_refused(
    framework: str, client: str, reaches: str | None, models: Sequence[ModelSpec]
) -> str | None:
    """Why a run's models cannot all be served by a client that talks to one provider.

    ``reaches`` is the provider the client serves, or ``None`` for an endpoint of the
    user's own, which serves one provider Assay cannot name: then the models must at least
    agree on theirs. Only the model name reaches the framework, so a model of another
    provider would be answered by this one under the other's label.
    """
    if reaches is not None:
        foreign = [spec.label for spec in models if spec.provider != reaches]
        if not foreign:
            return None
        return (
            f"the {framework} agent's {client} reaches {reaches} only, which does not serve "
            f"{', '.join(map(repr, foreign))} (--model): run only {reaches} models on it, or build "
            "the agent on a model of the provider you ask for"
        )
    if len({spec.provider for spec in models}) < 2:
        return None
    named = ", ".join(f"{spec.label!r} ({spec.provider})" for spec in models)
    return (
        f"the {framework} agent's {client} reaches one endpoint, which cannot serve models of "
        f"several providers: {named} (--model): run one provider's models at a time"
    )
