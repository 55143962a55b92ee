"""Fifty replayed samples at once: each sees only its own fixtures, and nothing else is touched."""

import asyncio
import threading
import time

import httpx
import httpx2
import openai
import requests

import assay_agents as assay
from assay_agents import checks
from assay_agents.results import SampleStatus
from assay_agents.runner import Execution, MemorySink, Runner

SAMPLES = 50
KINDS = ("httpx", "requests", "httpx-async", "openai-async", "allowed-live")
ORDERS = "https://orders.example/orders"
LLM = "https://llm.example/v1"


def failing(number):
    return number % 7 == 3


def completion(content):
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }


class AllStarted:
    """Holds every agent until all fifty samples are inside their replay sessions."""

    def __init__(self, count):
        self.count, self.started, self.lock = count, 0, threading.Lock()
        self.event = threading.Event()

    def arrive(self):
        with self.lock:
            self.started += 1
            if self.started == self.count:
                self.event.set()


def fixtures(number, live_url):
    kind = KINDS[number % len(KINDS)]
    if kind == "openai-async":
        body = {"model": "m", "messages": [{"role": "user", "content": f"order {number}"}]}
        return (
            assay.api()
            .expect_request("POST", f"{LLM}/chat/completions", json=body)
            .respond_with(json=completion(f"status-{number}"))
        )
    declared = assay.api(allow_hosts=["127.0.0.1"] if kind == "allowed-live" else None)
    for _ in range(2):  # the same call twice: declared twice
        declared = declared.expect_request("GET", ORDERS, query={"id": str(number)}).respond_with(
            json={"order": number, "status": f"status-{number}"}
        )
    return declared


def make_agent(gate, live_url, clients):
    # Shared clients, created before any sample started: interception is at the transport.
    sync_client, async_client, llm = clients

    def sent_id(number):
        return str(number + 1000 if failing(number) else number)

    def sync_agent(inputs, ctx):
        number, kind = inputs["number"], inputs["kind"]
        gate.arrive()
        gate.event.wait(10)
        statuses = []
        for _ in range(2):
            if kind == "requests":
                response = requests.get(ORDERS, params={"id": sent_id(number)}, timeout=5)
            else:
                if kind == "allowed-live":
                    assert sync_client.get(f"{live_url}/allowed-{number}").json()["live"]
                response = sync_client.get(ORDERS, params={"id": sent_id(number)})
            statuses.append(response.json()["status"])
            time.sleep(0.005)
        assert statuses[0] == statuses[1]
        return statuses[0]

    async def async_agent(inputs, ctx):
        number, kind = inputs["number"], inputs["kind"]
        gate.arrive()
        while not gate.event.is_set():
            await asyncio.sleep(0.005)
        if kind == "openai-async":
            content = f"order {sent_id(number)}"
            reply = await llm.chat.completions.create(
                model="m", messages=[{"role": "user", "content": content}]
            )
            return reply.choices[0].message.content
        first = (await async_client.get(ORDERS, params={"id": sent_id(number)})).json()
        await asyncio.sleep(0.005)
        second = (await async_client.get(ORDERS, params={"id": sent_id(number)})).json()
        assert first == second
        return first["status"]

    def dispatch(inputs, ctx):
        # A sync agent runs in the runner's worker thread; a returned coroutine is awaited
        # in the sample's task. Both carry the sample's context.
        if inputs["kind"] in ("httpx-async", "openai-async"):
            return async_agent(inputs, ctx)
        return sync_agent(inputs, ctx)

    return dispatch


def hammer_outside(live_url, stop, outcomes):
    """Plain application traffic with no sample context, during the whole run."""
    # Closed on the way out: an httpx client left open is freed only by a later collection,
    # whose unclosed-socket warning then fails whichever test is running.
    with httpx.Client() as client:
        while not stop.is_set():
            try:
                outcomes.append(client.get(f"{live_url}/outside").json()["live"])
                outcomes.append(requests.get(f"{live_url}/outside", timeout=5).json()["live"])
            except Exception as error:  # recorded, then asserted on
                outcomes.append(repr(error))
            time.sleep(0.01)


def test_fifty_concurrent_samples_never_see_each_others_fixtures(live_server):
    gate = AllStarted(SAMPLES)
    clients = (
        httpx.Client(),
        httpx.AsyncClient(),
        openai.AsyncOpenAI(api_key="sk-test", base_url=LLM, max_retries=0),
    )
    suite = assay.Suite(
        "Concurrent",
        agent=make_agent(gate, live_server.url, clients),
        checks=[checks.exact_match()],
    )
    for number in range(SAMPLES):
        suite.case(
            {"number": number, "kind": KINDS[number % len(KINDS)]},
            id=f"s{number}",
            expected=f"status-{number}",
            api=fixtures(number, live_server.url),
        )
    originals = (
        httpx2.HTTPTransport.handle_request,
        httpx2.AsyncHTTPTransport.handle_async_request,
    )
    stop, outside = threading.Event(), []
    background = threading.Thread(target=hammer_outside, args=(live_server.url, stop, outside))
    background.start()
    try:
        runner = Runner(
            suite.agent, sink=MemorySink(), execution=Execution(concurrency=SAMPLES, timeout=30)
        )
        results = asyncio.run(runner.execute(suite.plan()))
    finally:
        stop.set()
        background.join()
        clients[0].close()
        asyncio.run(clients[1].aclose())
        asyncio.run(clients[2].close())

    assert gate.event.is_set()  # all fifty were replaying at the same time
    for number, result in enumerate(results):
        evidence = result.metadata["api_replay"]
        if failing(number):
            assert result.status is SampleStatus.ERROR, result
            replayed = [r["status"] for r in evidence["requests"] if r["status"] != "allowed"]
            assert replayed[0] == "mismatch"
            assert str(number) in result.error and str(number + 1000) in result.error
        else:
            assert result.status is SampleStatus.PASSED, (number, result.error)
            assert result.answer == f"status-{number}"
            assert evidence["passed"] and not evidence["missing"]
    assert sum(failing(n) for n in range(SAMPLES)) == 7
    live = [n for n in range(SAMPLES) if KINDS[n % len(KINDS)] == "allowed-live"]
    assert all(live_server.count(f"/allowed-{n}") >= 1 for n in live if not failing(n))
    assert outside and all(value is True for value in outside), outside[:3]
    assert (
        httpx2.HTTPTransport.handle_request,
        httpx2.AsyncHTTPTransport.handle_async_request,
    ) == originals
