"""Built-in judges.

A judge is any object with a ``label`` and ``complete(instructions, prompt)``; these cover
OpenAI-compatible endpoints and LiteLLM.

>>> from assay import judges
>>> judge = judges.openai("gpt-4.1-mini")                       # doctest: +SKIP
>>> local = judges.openai("qwen3:8b", base_url="http://localhost:11434/v1")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from assay.judging.judge import FunctionJudge, Judge, JudgeReply
from assay.judging.openai_judge import OpenAIJudge
from assay.judging.retry import RetryPolicy

__all__ = ["Judge", "JudgeReply", "RetryPolicy", "function", "litellm", "openai"]


def openai(model: str, *, base_url: str | None = None, api_key: str | None = None,
           temperature: float = 0.0, label: str | None = None, timeout: float = 60.0,
           json_mode: bool = True, retry: RetryPolicy | None = None,
           **extra: Any) -> OpenAIJudge:
    """A judge on the official ``openai`` client (OpenAI, Azure, OpenRouter, Ollama, vLLM, ...).

    ``api_key`` defaults to ``OPENAI_API_KEY``. Needs the ``openai`` package
    (``pip install 'assay[openai]'``).
    """
    from assay.agent import ModelSpec
    from assay.agent.adapters._optional import require

    require("openai", "openai")
    spec = ModelSpec.parse(model)
    # "ollama/qwen3:8b" is sent as "qwen3:8b"; an OpenRouter id keeps its vendor prefix.
    return OpenAIJudge(model=spec.model, label=label or model, provider=spec.provider,
                       base_url=base_url, api_key=api_key, temperature=temperature,
                       timeout=timeout, json_mode=json_mode, retry=retry or RetryPolicy(),
                       extra=extra)


def litellm(model: str, *, temperature: float = 0.0, label: str | None = None,
            retry: RetryPolicy | None = None, **extra: Any) -> Judge:
    """A judge through LiteLLM (``pip install 'assay[litellm]'``); ``model`` as LiteLLM names it."""
    from assay.agent.adapters._optional import require
    from assay.judging.litellm_judge import LiteLLMJudge

    require("litellm", "litellm")
    return LiteLLMJudge(model=model, label=label or model, temperature=temperature,
                        retry=retry or RetryPolicy(), extra=extra)


def function(label: str, complete: Callable[[str, str], str | JudgeReply
                                            | Awaitable[str | JudgeReply]]) -> FunctionJudge:
    """A judge from a function ``complete(instructions, prompt) -> str`` (sync or async)."""
    return FunctionJudge(label, complete)
