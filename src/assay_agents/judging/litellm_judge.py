"""A judge through LiteLLM, for providers the ``openai`` client does not speak to directly."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay_agents.judging.judge import JudgeReply
from assay_agents.judging.metering import Meter
from assay_agents.judging.openai_judge import endpoint_host, metered
from assay_agents.judging.retry import DEFAULT_JUDGE_TIMEOUT, RetryPolicy, with_retries


@dataclass(kw_only=True)
class LiteLLMJudge:
    """``litellm.acompletion`` at ``temperature``, retried on transient failures.

    ``judge_timeout`` bounds the whole call, its retries and waits included.
    """

    model: str
    label: str
    temperature: float = 0.0
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Told of each answered call (``on_usage``); see :mod:`assay_agents.judging.metering`.
    meter: Meter | None = None

    def endpoint(self) -> str | None:
        """The host of ``api_base`` (or ``base_url``) when one was given, else None."""
        url = self.extra.get("api_base") or self.extra.get("base_url")
        return endpoint_host(url) if isinstance(url, str) else None

    def endpoint_url(self) -> str | None:
        """``api_base`` (or ``base_url``) whole and without credentials, else None.

        Part of each cache key, not of the judge's identity (see :mod:`assay_agents.judging.cache`).
        """
        from assay_agents.keys import endpoint_url

        url = self.extra.get("api_base") or self.extra.get("base_url")
        return endpoint_url(url) if isinstance(url, str) else None

    def prepare(self) -> None:
        """Import LiteLLM ahead of time, off the event loop (the run calls this first)."""
        from assay_agents.agent.adapters.optional import import_litellm

        litellm = import_litellm()
        if self.extra.get("api_key") or self.extra.get("api_base") or self.extra.get("base_url"):
            return
        # Refused before any sample runs, naming the variable the provider reads.
        missing = litellm.validate_environment(self.model).get("missing_keys") or []
        if missing:
            from assay_agents.errors import ConfigurationError

            raise ConfigurationError(
                f"judge {self.label} needs {' and '.join(missing)} in the environment"
            )

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        """Ask once (with retries on transient failures)."""
        from assay_agents.agent.adapters.optional import import_litellm

        litellm = import_litellm()

        async def call() -> Any:
            return await litellm.acompletion(
                model=self.model,
                temperature=self.temperature,
                num_retries=0,
                messages=[
                    {"role": "system", "content": instructions},
                    {"role": "user", "content": prompt},
                ],
                **self.extra,
            )

        started = time.perf_counter()
        response = await with_retries(
            call,
            _transient,
            self.retry,
            self.label,
            deadline=self.judge_timeout,
            key=_key(self.model),
        )
        content = response.choices[0].message.content
        if not isinstance(content, str):
            raise ValueError("the judge's response has no message content")
        usage = getattr(response, "usage", None)
        cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
        answered = JudgeReply(
            content,
            getattr(usage, "prompt_tokens", None),
            getattr(usage, "completion_tokens", None),
            float(cost) if isinstance(cost, int | float) else None,
        )
        if self.meter is not None:
            self.meter.deliver(metered(answered, self.model, self.label, started))
        return answered


#: Parameters the judge sets itself: given again, every call would fail.
_OWN = frozenset({"model", "messages", "temperature", "stream", "num_retries", "kwargs"})


def completion_options() -> tuple[frozenset[str], frozenset[str]]:
    """What ``litellm.acompletion`` takes from a judge: its parameters, and LiteLLM's settings.

    The settings are LiteLLM's own (``api_base``, ``custom_llm_provider``, each provider's
    credentials, ...), which it reads from the same keyword arguments.
    """
    import inspect

    from assay_agents.agent.adapters.optional import import_litellm

    litellm = import_litellm()
    named = frozenset(inspect.signature(litellm.acompletion).parameters) - _OWN
    try:
        from litellm.types.utils import all_litellm_params
    except ImportError:  # pragma: no cover - an older LiteLLM
        all_litellm_params = []
    credentials: frozenset[str] = getattr(litellm, "AWS_CREDENTIAL_KWARGS_KEYS", frozenset())
    settings = frozenset(all_litellm_params) | frozenset(credentials) | {"api_base"}
    return named, frozenset(name for name in settings - _OWN if not name.startswith("_"))


def _key(model: str) -> tuple[str, str]:
    """LiteLLM's ``provider/model`` as ``(provider, model)`` (a bare name: ``("", name)``)."""
    provider, _, rest = model.partition("/")
    return (provider, rest) if rest else ("", model)


def _transient(error: BaseException) -> Mapping[str, str] | None:
    status = getattr(error, "status_code", None)
    name = type(error).__name__
    if (
        status == 429
        or (isinstance(status, int) and status >= 500)
        or "Timeout" in name
        or "Connection" in name
    ):
        response = getattr(error, "response", None)
        return dict(getattr(response, "headers", {}) or {})
    return None
