"""What a diagnosis keeps with its sample beside the fault: the tools and a refinement."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Refinement:
    """A judge's refinement of a recommendation: what to do, the tool to add, the wording.

    ``tool_name`` and ``tool_description`` name a tool to add; ``instruction`` quotes the
    instruction to add or change. ``judge`` is the label of the judge that wrote it.
    """

    recommendation: str
    tool_name: str | None = None
    tool_description: str | None = None
    instruction: str | None = None
    judge: str | None = None


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """The tools a sample's fault involves, what they are to it, and a judge's refinement.

    ``tools_label`` says what the tools are to the fault (``missing tools``, ...);
    ``missing_tools`` are tools the agent lacks, beside ``tools`` it has: a fix of their
    own (add them), left out of the stored form when there are none.
    """

    tools: tuple[str, ...] = ()
    tools_label: str | None = None
    refinement: Refinement | None = None
    missing_tools: tuple[str, ...] = field(default=(), metadata={"omit_empty": True})
