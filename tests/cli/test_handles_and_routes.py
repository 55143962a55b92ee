"""``suite#n`` names a run wherever a run id does; a judge goes where its name routes it."""

import json

import assay_agents as assay


def interleaved(db):
    """Runs of two suites, taken in turns: desk, desk, trip, desk, trip."""
    ids = []
    for name in ("desk", "desk", "trip", "desk", "trip"):
        suite = assay.Suite(name, agent=lambda text, ctx: "ok")
        suite.case("q", checks=[assay.checks.contains("ok")])
        ids.append(assay.run(suite, db=db, progress=False).id)
    return ids


def test_a_handle_works_wherever_a_run_id_does(cli):
    db = f"sqlite:///{cli.cwd}/h.db"
    assert cli("db", "migrate", "--db", db).returncode == 0
    ids = interleaved(db)
    shown = cli("report", "desk#2", "--db", db, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["id"] == ids[1] and report["number"] == 2
    compared = cli("compare", "desk#1", "desk#3", "--db", db)
    assert compared.returncode == 0, compared.stderr
    pinned = cli("baseline", "set", "desk#3", "--db", db)
    assert pinned.returncode == 0 and ids[3][:8] in pinned.stdout
    history = cli("history", "--db", db, "--format", "json")
    rows = json.loads(history.stdout)
    assert [row["handle"] for row in rows] == ["trip#2", "desk#3", "trip#1", "desk#2", "desk#1"]
    text = cli("report", "trip#1", "--db", db, "--format", "text")
    assert f"{ids[2]} (trip#1" in text.stdout
    missing = cli("report", "desk#9", "--db", db)
    assert missing.returncode == 2 and "suite 'desk' has runs #1 to #3" in missing.stderr
    huge = "desk#" + "9" * 23  # past any integer column
    for command in ("report", "rescore"):
        beyond = cli(command, huge, "--db", db)
        assert beyond.returncode == 2, beyond.stderr
        assert f"no run {huge}: suite 'desk' has runs #1 to #3" in beyond.stderr
        assert "Python int" not in beyond.stderr and "SQLite" not in beyond.stderr


def test_a_judge_pinned_to_a_provider_that_is_not_configured_exits_2(cli, support_spec):
    env = {"OPENROUTER_API_KEY": "r", "ANTHROPIC_API_KEY": ""}
    refused = cli("run", support_spec, "--judge", "anthropic/claude-haiku-4-5", env=env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "routes to Anthropic" in refused.stderr and "ANTHROPIC_API_KEY" in refused.stderr
    assert not (cli.cwd / ".assay").exists()


def test_an_unpinned_judge_takes_the_first_configured_provider(cli, support_spec):
    from assay_agents.testing import ScriptedServer, verdict

    with ScriptedServer(lambda body: verdict(0.9, "Same facts.")) as server:
        env = {
            "ANTHROPIC_API_KEY": "",
            "OPENAI_API_KEY": "test",
            "OPENAI_BASE_URL": server.base_url,
        }
        done = cli("run", support_spec, "--judge", "auto", env=env)
        asked = {request["model"] for request in server.requests}
    assert done.returncode == 0, done.stdout + done.stderr
    assert asked == {"gpt-4.1-mini"}
    assert cli.json_report()["settings"]["judge"].startswith("openai/gpt-4.1-mini")
