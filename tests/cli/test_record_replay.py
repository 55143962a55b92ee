"""``assay-agents run --record`` writes each case's HTTP calls; ``--replay`` replays them.

The scripted server plays the provider for the recording and is stopped before the replay,
so the replayed run proves that nothing reached the network. It proves transport, not
model reasoning.
"""

from __future__ import annotations

import json
from pathlib import Path

from assay_agents.spec.fixtures import fixture_file
from assay_agents.testing.server import ScriptedServer, streamed

SUITE = """
import os

import openai

import assay_agents as assay
from assay_agents import checks

KEY = "sk-test0123456789abcdefghijklmn"


def agent(question):
    with openai.OpenAI(base_url=os.environ["CHAT_BASE_URL"], api_key=KEY, max_retries=0) as client:
        stream = client.chat.completions.create(
            model="support-v1", messages=[{"role": "user", "content": question}], stream=True)
        return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)


suite = assay.Suite("Support desk", agent=agent)
suite.case("Can I get a refund?", id="refund", checks=[checks.contains("refund approved")])
suite.case("Where is order 42?", id="order 42/status", checks=[checks.contains("shipped")])
"""


def answer(body):
    question = body["messages"][0]["content"]
    return streamed("Yes, refund approved.") if "refund" in question else streamed("It shipped.")


def test_a_recorded_run_replays_strictly_with_the_server_gone(cli, tmp_path: Path):
    (tmp_path / "suite.py").write_text(SUITE)
    server = ScriptedServer(answer).start()
    env = {"CHAT_BASE_URL": server.base_url}
    recorded = cli("run", "suite.py", "--record", env=env)
    server.stop()
    assert recorded.returncode == 0, recorded.output
    assert "recorded: 2 fixture file(s) in " in recorded.stderr
    folder = fixture_file(tmp_path / "recorded", "Support desk").with_suffix("")
    refund, order = fixture_file(folder, "refund"), fixture_file(folder, "order 42/status")
    assert refund == folder / "refund.json" and order.parent == folder
    written = json.loads(refund.read_text())
    events = written["interactions"][0]["response"]["events"]
    assert [event["data"] for event in events][-1] == "[DONE]"
    assert "sk-test" not in refund.read_text() + order.read_text()

    replayed = cli("run", "suite.py", "--replay", env=env)
    assert replayed.returncode == 0, replayed.output
    assert len(server.requests) == 2


def test_record_and_replay_refuse_bad_paths_with_exit_2(cli, tmp_path: Path):
    (tmp_path / "suite.py").write_text(SUITE)
    env = {"CHAT_BASE_URL": "http://127.0.0.1:9/v1"}
    (tmp_path / "a-file").write_text("x")
    not_a_folder = cli("run", "suite.py", "--record", "--fixtures", "a-file", env=env)
    assert not_a_folder.returncode == 2
    assert "a-file: is a file" in not_a_folder.stderr

    missing = cli("run", "suite.py", "--replay", "--fixtures", "nowhere", env=env)
    assert missing.returncode == 2
    assert "nowhere: is not a folder of recorded fixtures" in missing.stderr

    (tmp_path / "fx").mkdir()
    (tmp_path / "fx" / "refund.json").write_text('{"interactions": []}')
    kept = cli("run", "suite.py", "--record", "--fixtures", "fx", env=env)
    assert kept.returncode == 2
    assert "refund.json: exists and was not recorded by Assay, or was edited" in kept.stderr
    assert (tmp_path / "fx" / "refund.json").read_text() == '{"interactions": []}'

    no_file = cli("run", "suite.py", "--replay", "--fixtures", "fx", env=env)
    assert no_file.returncode == 2
    assert "no recorded fixtures for case(s) 'order 42/status'" in no_file.stderr

    bad = {
        "interactions": [
            {"method": "GET", "url": "https://x.example/", "ignore": ["nope"], "response": {}}
        ]
    }
    fixture_file(tmp_path / "fx", "order 42/status").write_text('{"interactions": []}')
    (tmp_path / "fx" / "refund.json").write_text(json.dumps(bad))
    hostile = cli("run", "suite.py", "--replay", "--fixtures", "fx", env=env)
    assert hostile.returncode == 2
    assert "refund.json: api[0].ignore[0]: 'nope' is not a JSON path" in hostile.stderr

    both = cli("run", "suite.py", "--record", "--replay", env=env)
    assert both.returncode == 2
    several = cli("run", "suite.py", "--record", "--samples", "2", "--fixtures", "new", env=env)
    assert several.returncode == 2
    assert "record: records one sample per case, not 2" in several.stderr
    assert not (tmp_path / "new").exists()


def test_redact_adds_the_suites_own_pattern_to_the_recording(cli, tmp_path: Path):
    (tmp_path / "suite.py").write_text(SUITE.replace("Where is order 42?", "Where is acct-998877?"))
    server = ScriptedServer(answer).start()
    env = {"CHAT_BASE_URL": server.base_url}
    refused = cli("run", "suite.py", "--redact", r"acct-\d+", env=env)
    assert refused.returncode == 2 and "--redact needs --record" in refused.stderr
    recorded = cli("run", "suite.py", "--record", "--redact", r"acct-\d+", env=env)
    server.stop()
    assert recorded.returncode == 0, recorded.output
    folder = fixture_file(tmp_path / "recorded", "Support desk").with_suffix("")
    written = fixture_file(folder, "order 42/status").read_text()
    assert "acct-998877" not in written and "[redacted sha256:" in written
    replayed = cli("run", "suite.py", "--replay", env=env)
    assert replayed.returncode == 0, replayed.output
