"""Built-in judges.

A judge is any object with a ``label`` and ``complete(instructions, prompt)``; these cover
OpenAI-compatible endpoints and LiteLLM.

>>> from assay_agents import judges
>>> judge = judges.openai("gpt-4.1-mini")                       # doctest: +SKIP
>>> local = judges.openai("qwen3:8b", base_url="http://localhost:11434/v1")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from assay_agents.judging.judge import FunctionJudge, Judge, JudgeReply
from assay_agents.judging.metering import JudgeCall, UsageCallback, meter
from assay_agents.judging.openai_judge import OpenAIJudge
from assay_agents.judging.retry import DEFAULT_JUDGE_TIMEOUT, RetryPolicy

if TYPE_CHECKING:
    from assay_agents.results.settings import JudgeSpec

__all__ = [
    "DEFAULT_JUDGE_TIMEOUT",
    "Judge",
    "JudgeCall",
    "JudgeReply",
    "RetryPolicy",
    "from_spec",
    "function",
    "litellm",
    "named",
    "openai",
    "route",
    "with_judge_timeout",
]


def openai(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float = 0.0,
    label: str | None = None,
    timeout: float = 60.0,
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT,
    json_mode: bool = True,
    retry: RetryPolicy | None = None,
    on_usage: UsageCallback | None = None,
    **extra: Any,
) -> OpenAIJudge:
    """A judge on the official ``openai`` client (OpenAI, Azure, OpenRouter, Ollama, vLLM, ...).

    ``api_key`` defaults to ``OPENAI_API_KEY``. ``timeout`` bounds one HTTP request;
    ``judge_timeout`` (120 s by default, None for none) bounds, in a run, the whole judging
    of one sample (every criterion and vote with their retries and waits), and elsewhere one
    call; past it the vote is an error. ``on_usage`` is called with a :class:`JudgeCall`
    after each answered call (its kind, model, tokens, cost, latency); an exception in it is
    reported once and never changes a grade. Any other keyword is a parameter of
    ``chat.completions.create`` (``max_tokens``, ``seed``, ``extra_body``, ...); one it does
    not take is refused here (:class:`TypeError`), not on every call. Needs the ``openai``
    package (``pip install 'assay-agents[openai]'``).
    """
    from assay_agents.agent import ModelSpec
    from assay_agents.agent.adapters.optional import require

    require("openai", "openai")
    if extra:
        from assay_agents.judging.openai_judge import completion_options

        _refuse_unknown("judges.openai", extra, completion_options())
    spec = ModelSpec.parse(model)
    # "ollama/qwen3:8b" is sent as "qwen3:8b"; an OpenRouter id keeps its vendor prefix.
    return OpenAIJudge(
        model=spec.model,
        label=label or model,
        provider=spec.provider,
        base_url=base_url,
        api_key=api_key,
        temperature=temperature,
        timeout=timeout,
        judge_timeout=_positive(judge_timeout),
        json_mode=json_mode,
        retry=retry or RetryPolicy(),
        extra=extra,
        meter=meter(on_usage, label or model),
    )


def litellm(
    model: str,
    *,
    temperature: float = 0.0,
    label: str | None = None,
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT,
    retry: RetryPolicy | None = None,
    on_usage: UsageCallback | None = None,
    **extra: Any,
) -> Judge:
    """A judge through LiteLLM (``pip install 'assay-agents[litellm]'``), ``model`` as it names it.

    ``judge_timeout`` bounds the judging of one sample and ``on_usage`` meters each answered
    call, as for :func:`openai`. Any other keyword goes to ``litellm.acompletion``
    (``api_base``, ``api_key``, ``max_tokens``, ...); one it does not take is refused here.
    """
    from assay_agents.agent.adapters.optional import require
    from assay_agents.judging.litellm_judge import LiteLLMJudge

    require("litellm", "litellm")
    if extra:
        from assay_agents.judging.litellm_judge import completion_options

        named, settings = completion_options()
        _refuse_unknown(
            "judges.litellm", extra, named, settings, "or one of LiteLLM's own settings"
        )
    return LiteLLMJudge(
        model=model,
        label=label or model,
        temperature=temperature,
        judge_timeout=_positive(judge_timeout),
        retry=retry or RetryPolicy(),
        extra=extra,
        meter=meter(on_usage, label or model),
    )


def _refuse_unknown(
    factory: str,
    given: Mapping[str, Any],
    accepted: frozenset[str],
    also: frozenset[str] = frozenset(),
    more: str = "",
) -> None:
    """Refuse, naming it and what is accepted, a keyword every judge call would fail on."""
    unknown = sorted(name for name in given if name not in accepted and name not in also)
    if not unknown:
        return
    from assay_agents.text import suggestion

    named = ", ".join(repr(name) for name in unknown)
    own = _OWN_SETTINGS[factory]
    hint = suggestion(unknown[0], [*accepted, *also, *own.split(", ")])
    raise TypeError(
        f"{factory}() got unexpected keyword argument(s) {named}{hint}; it takes model, "
        f"its own settings ({own}) and the completion's parameters: "
        f"{', '.join(sorted(accepted))}" + (f", {more}" if more else "")
    )


#: Each factory's own keyword arguments, as a refusal lists them.
_OWN_SETTINGS = {
    "judges.openai": "base_url, api_key, temperature, label, timeout, judge_timeout, "
    "json_mode, retry, on_usage",
    "judges.litellm": "temperature, label, judge_timeout, retry, on_usage",
}


def named(
    model: str,
    *,
    base_url: str | None = None,
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT,
) -> Judge:
    """The judge a model name gives, as ``--judge`` and the project configuration name one.

    ``openai/...``, ``azure/...`` and ``local/...`` models, and any model at ``base_url``,
    are called through the ``openai`` client (:func:`openai`); any other provider through
    LiteLLM (:func:`litellm`), as ``provider/model``. ``auto`` is the unpinned judge
    (:func:`route`). Without ``base_url``, a model whose provider is not configured while
    another one is is refused (:class:`~assay_agents.errors.ConfigurationError`) rather than sent
    where it cannot go.
    """
    import os

    from assay_agents.agent import ModelSpec
    from assay_agents.errors import ConfigurationError
    from assay_agents.judging.routing import configured_providers, route_judge

    if model.strip().lower() == "auto":
        unpinned = route(None, judge_timeout=judge_timeout)
        if unpinned is None:
            raise ConfigurationError(
                "judge 'auto' found no configured provider: set ANTHROPIC_API_KEY, "
                "OPENAI_API_KEY, OPENROUTER_API_KEY or OLLAMA_HOST"
            )
        return unpinned
    if base_url is None and configured_providers(os.environ):
        route_judge(model, os.environ)  # raises when the pin's own route is missing
    spec = ModelSpec.parse(model)
    if base_url is not None or spec.provider in {"openai", "azure", "local"}:
        return openai(model, base_url=base_url, judge_timeout=judge_timeout)
    return litellm(f"{spec.provider}/{spec.model}", label=model, judge_timeout=judge_timeout)


def route(
    model: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT,
) -> Judge | None:
    """A judge routed by its model's name and the credentials set (``--judge auto`` is unpinned).

    Without ``model`` it takes the first configured provider in the order Anthropic, OpenAI,
    OpenRouter, Ollama (``None`` when none is: judge criteria are then not calculated). A
    pinned model goes to the provider it names or implies (see :mod:`assay_agents.judging.routing`);
    a provider that is not configured is a :class:`~assay_agents.errors.ConfigurationError`, never
    a fall back to another one. Calls go through the ``openai`` client.
    """
    import os

    from assay_agents.judging.routing import route_judge

    found = route_judge(model, os.environ if environ is None else environ)
    if found is None:
        return None
    return openai(
        f"{found.provider}/{found.model}",
        base_url=found.base_url,
        api_key=found.api_key,
        label=found.label,
        judge_timeout=judge_timeout,
    )


def from_spec(spec: JudgeSpec, *, api_key: str | None = None) -> Judge:
    """The judge a run's settings keep the spec of (``run.settings.judge_spec``).

    The provider and model are taken as stored, never inferred again; ``api_key`` defaults
    to the environment, as for :func:`openai`.
    """
    from assay_agents.errors import ConfigurationError

    if spec.client == "openai":
        from assay_agents.agent.adapters.optional import require

        require("openai", "openai")
        return OpenAIJudge(
            model=spec.model,
            label=spec.label,
            provider=spec.provider,
            base_url=spec.base_url,
            api_key=api_key,
            temperature=spec.temperature,
            timeout=60.0 if spec.timeout is None else spec.timeout,
            judge_timeout=spec.judge_timeout,
        )
    if spec.client == "litellm":
        return litellm(
            spec.model,
            temperature=spec.temperature,
            label=spec.label,
            judge_timeout=spec.judge_timeout,
        )
    raise ConfigurationError(f"judge client {spec.client!r} is none this version can build")


def with_judge_timeout(judge: Any, seconds: float) -> Any:
    """The same judge with another overall deadline (``--judge-timeout``); refused without one."""
    import dataclasses

    if (
        dataclasses.is_dataclass(judge)
        and not isinstance(judge, type)
        and any(f.name == "judge_timeout" for f in dataclasses.fields(judge))
    ):
        return dataclasses.replace(judge, judge_timeout=_positive(seconds))
    # A deadline the judge cannot honour must not be accepted and then silently not applied.
    from assay_agents.errors import ConfigurationError
    from assay_agents.judging import judge_identity

    raise ConfigurationError(
        f"--judge-timeout: the judge {judge_identity(judge)!r} has no deadline to set (only "
        "Assay's own judges have one); give the judge it wraps its judge_timeout, or use --judge"
    )


def _positive(seconds: float | None) -> float | None:
    from assay_agents.errors import ConfigurationError
    from assay_agents.limits import problem

    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not seconds > 0
        or seconds == float("inf")
    ):
        raise ConfigurationError(f"judge_timeout {seconds!r} is not a number of seconds > 0")
    if seconds is not None and (found := problem("judge_timeout", seconds)) is not None:
        raise ConfigurationError(f"judge_timeout {found}")
    return seconds


def function(
    label: str, complete: Callable[[str, str], str | JudgeReply | Awaitable[str | JudgeReply]]
) -> FunctionJudge:
    """A judge from a function ``complete(instructions, prompt) -> str`` (sync or async)."""
    return FunctionJudge(label, complete)
