import json
import os
import socket

import pytest

import assay_agents as assay
from assay_agents.load import load_items
from assay_agents.spec.fixtures import ApiFixtures

from .conftest import ITEM


def refused(folder, text, *, name="item.toml", **options):
    root = folder({name: text}, **options)
    with pytest.raises(assay.SpecError) as caught:
        load_items(root)
    return str(caught.value)


def test_an_item_becomes_a_case_with_every_part(folder):
    root = folder(
        {
            "set_name.toml": """\
        id = "trip.set_name"
        name = "Setting the name"
        group = "write"
        tags = ["trip", "write"]
        judge = ["language_quality"]
        notes = "one command"
        production_only = true
        [params]
        locale = "en-GB"
        [input]
        text = "Set the name to Lisbon offsite"
        [expect]
        answer = "Done"
        contains = ["Lisbon"]
        not_contains = ["sorry", "cannot"]
        tools = ["set_name"]
        commands = ["trip.set_name"]
        events = []
        [[expect.actions]]
        group = "trip"
        name = "set_name"
        arguments = {name = "Lisbon offsite"}
        [expect.forbid]
        commands = ["trip.rebook"]
        [setup]
        cases = [{case_id = "trip-1", revision = 3}]
        [provenance]
        setup = "derived"
        expect = "recorded"
        """
        }
    )
    suite = load_items(root)
    case = suite.cases[0]
    assert (case.id, case.name, case.group, case.input) == (
        "trip.set_name",
        "Setting the name",
        "write",
        "Set the name to Lisbon offsite",
    )
    assert case.tags == ("trip", "write") and case.params == {"locale": "en-GB"}
    assert case.notes == "one command" and case.production_only
    assert case.reference == "Done" and case.criteria == ("language_quality",)
    assert case.expected_actions[0].to_json() == {
        "group": "trip",
        "name": "set_name",
        "arguments": {"name": "Lisbon offsite"},
    }
    assert case.observation == {"commands": ["trip.set_name"], "events": []}
    assert case.forbid == {"commands": ["trip.rebook"]}
    assert case.setup == {"cases": [{"case_id": "trip-1", "revision": 3}]}
    assert case.provenance == {
        "setup": "derived",
        "reference": "recorded",
        "expected_actions": "recorded",
        "observation": "recorded",
        "forbid": "recorded",
        "checks": "recorded",
    }
    metrics = suite.plan(judged=True).case(case.id).metrics
    assert [m.name for m in metrics if m.kind == "check"] == [
        "tools_called",
        "contains",
        "not_contains[0]",
        "not_contains[1]",
        "actions",
        "commands",
        "events",
        "forbid.commands",
    ]
    assert "language_quality" in [m.name for m in metrics if m.kind == "judge"]


def test_suite_toml_settings_reach_the_suite(folder):
    root = folder(
        {"a.toml": ITEM},
        settings="""\
        name = "trip"
        version = "3"
        description = "d"
        harness = "harness.py:Harness"
        agent_name = "TripAssistant"
        samples = 4
        votes = 3
        concurrency = 2
        sample_concurrency = 1
        max_observed = 10
        channels = ["commands", "events"]
        criteria = ["tone"]
        [gate]
        min_pass_rate = 0.75
        min_judge_score = 0.5
        [provenance]
        setup = "derived"
        """,
    )
    suite = load_items(root)
    assert (suite.name, suite.version, suite.description, suite.agent_name) == (
        "trip",
        "3",
        "d",
        "TripAssistant",
    )
    assert (suite.samples, suite.votes, suite.concurrency, suite.sample_concurrency) == (4, 3, 2, 1)
    assert suite.criteria == ("tone",)
    assert suite.gate == assay.Gate(min_pass_rate=0.75, min_judge_score=0.5)
    assert suite.agent.max_observed == 10
    assert suite.provenance == {"setup": "derived"}


def test_the_harness_runs_the_items(folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = assay.run(load_items(folder({"a.toml": ITEM})), progress=False)
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.PASSED
    assert sample.observation.channels == {
        "commands": ["trip.set_name"],
        "events": ["trip.name_set"],
    }


def test_json_items_and_a_reply_to_a_pending_interaction(folder):
    root = folder(
        {
            "reply.json": json.dumps(
                {
                    "id": "confirm",
                    "input": {"reply": {"case": "trip-1", "option": "confirm"}},
                    "expect": {"commands": []},
                }
            )
        }
    )
    case = load_items(root).cases[0]
    assert case.input == {"reply": {"case": "trip-1", "option": "confirm"}}
    assert case.reply == assay.Reply("trip-1", "confirm")


def test_api_entries_become_replay_fixtures_with_paths_relative_to_the_item(folder):
    root = folder(
        {
            "api.toml": """\
        id = "lookup"
        [input]
        text = "Where is order 42?"
        [[api]]
        method = "GET"
        url = "https://shop.example/orders?id=42"
        [api.response]
        body_file = "bodies/order.json"
        """
        }
    )
    (root / "bodies").mkdir()
    (root / "bodies" / "order.json").write_text('{"status": "shipped"}')
    fixtures = load_items(root).cases[0].api
    assert isinstance(fixtures, ApiFixtures) and len(fixtures.interactions) == 1
    assert fixtures.interactions[0].request.query == (("id", "42"),)


def test_the_trip_example_loads(trip_items):
    suite = load_items(trip_items)
    assert [case.id for case in suite.cases] == [
        "trip.confirm_rebooking",
        "trip.move_without_rebooking",
        "trip.set_name",
        "trip.set_travel_date",
    ]
    assert suite.samples == 4 and suite.gate.max_side_effect_failures == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            ITEM.replace("[expect.forbid]", "[expect.forbidd]"),
            "item.toml: expect.forbidd: unknown field (did you mean 'forbid'?)",
        ),
        (
            ITEM.replace('id = "trip.set_name"', 'id = "x"\nnmae = "y"'),
            "item.toml: nmae: unknown field (did you mean 'name'?)",
        ),
        (ITEM.replace("[input]", "[inputs]"), "inputs: unknown field (did you mean 'input'?)"),
        (
            ITEM.replace('commands = ["trip.set_name"]', 'comands = ["trip.set_name"]'),
            "expect.comands: unknown field (did you mean 'commands'?)",
        ),
        (
            ITEM.replace('text = "Set the name"', 'txt = "Set the name"'),
            "input.txt: unknown field (did you mean 'text'?)",
        ),
        (
            ITEM.replace('text = "Set the name"', ""),
            "item.toml: input: needs text or a reply to a pending interaction",
        ),
        (
            ITEM.replace(
                'text = "Set the name"', 'text = "x"\n[input.reply]\ncase = "t"\noption = "o"'
            ),
            "input: has both text and a reply",
        ),
        (
            ITEM.replace('"trip.rebook"', '"trip.set_name"'),
            "expect.forbid.commands: [trip.set_name] is both required",
        ),
        (
            ITEM.replace("[expect.forbid]\ncommands", "[expect.forbid]\ncommand"),
            "expect.forbid.command: unknown channel (did you mean 'commands'?)",
        ),
        (
            ITEM.replace('commands = ["trip.rebook"]', "commands = []"),
            "expect.forbid.commands: an empty forbid list forbids nothing",
        ),
        (
            ITEM.replace('commands = ["trip.set_name"]', 'commands = "trip.set_name"'),
            "expect.commands: must be a list",
        ),
        (
            ITEM + '[provenance]\nsetup = "derived"\n',
            "provenance.setup: declares the provenance of setup, which this item does not have",
        ),
        (
            ITEM + '[provenance]\nsetpu = "derived"\n',
            "provenance.setpu: unknown part (did you mean 'setup'?)",
        ),
        (
            ITEM + '[provenance]\ninput = "written"\n',
            "provenance.input: 'written' is not allowed; expected 'authored', 'derived' or "
            "'recorded'",
        ),
        (
            ITEM.replace('id = "trip.set_name"', 'id = "x"\njudge = ["tone", "tnoe"]'),
            "judge[1]: 'tnoe' is not allowed",
        ),
        (ITEM.replace('id = "trip.set_name"', "id = 7"), "id: Input should be a valid string"),
        (ITEM.replace('id = "trip.set_name"', ""), "item.toml: id: required field is missing"),
        (
            ITEM.replace('id = "trip.set_name"', 'id = "x"\nsetup = 1979-05-27'),
            "setup: is not a JSON value",
        ),
        ("id = [", "item.toml: invalid TOML"),
    ],
)
def test_bad_items_are_refused_naming_file_field_and_near_name(folder, text, message):
    assert message in refused(folder, text)


def test_duplicate_ids_name_both_files(folder):
    root = folder({"a.toml": ITEM, "b.toml": ITEM})
    with pytest.raises(
        assay.SpecError,
        match=r"b.toml: id: duplicate id 'trip.set_name' "
        r"\(also in a.toml\)",
    ):
        load_items(root)


def test_json_items_refuse_duplicate_keys(folder):
    root = folder({"a.json": '{"id": "a", "id": "b", "input": {"text": "x"}}'})
    with pytest.raises(assay.SpecError, match=r"a\.json: invalid JSON: duplicate key 'id'"):
        load_items(root)


def test_channels_must_be_declared_by_the_suite(folder):
    message = refused(folder, ITEM, settings='name = "trip"\n', harness=None)
    assert "expect.commands: unknown field" in message


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('agent = "a:b"\nharness = "c:d"\n', "harness: names both an agent and a harness"),
        (
            'agent = "harness.py:Harness"\nmax_observed = 5\n',
            "max_observed: is a ceiling on what a harness reads",
        ),
        ('channels = ["forbid"]\n', "channels[0]: 'forbid' is a field of [expect]"),
        ('channels = ["events", "events"]\n', "channels[1]: 'events' is listed twice"),
        ("samples = 0\n", "samples: Input should be greater than or equal to 1"),
        (
            'harness = "harness.py:Nothing"\n',
            "harness: 'harness.py:Nothing': harness.py has no attribute 'Nothing'",
        ),
        ('harness = "missing.py:H"\n', "harness: no such file"),
        ('harness = "no_such_module_here:H"\n', "cannot import 'no_such_module_here'"),
        ('harnes = "harness.py:Harness"\n', "harnes: unknown field (did you mean 'harness'?)"),
        ("[gate]\nmin_pass_rate = 1.5\n", "gate.min_pass_rate: Input should be less than"),
        (
            "[gate]\nmax_side_effects = 1\n",
            "gate.max_side_effects: unknown field (did you mean 'max_side_effect_failures'?)",
        ),
        (
            '[provenance]\nexpected = "recorded"\n',
            "provenance.expected: unknown part (did you mean 'expect'?)",
        ),
    ],
)
def test_bad_suite_settings_are_refused(folder, settings, message):
    root = folder({"a.toml": 'id = "a"\n[input]\ntext = "x"\n'}, settings=settings)
    with pytest.raises(assay.SpecError) as caught:
        load_items(root)
    assert "suite.toml" in str(caught.value) and message in str(caught.value)


def test_a_directory_without_items_or_settings(folder, tmp_path):
    with pytest.raises(assay.SpecError, match="holds no item files"):
        load_items(folder({}))
    root = folder(
        {"a.toml": 'id = "a"\n[input]\ntext = "x"\n'}, settings=None, harness=None, name="plain"
    )
    suite = load_items(root)
    assert suite.name == "plain" and suite.agent_name == "unspecified"


def test_a_link_to_a_file_outside_the_folder_is_refused(folder, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"id": "stolen", "input": {"text": "x"}}')
    root = folder({"a.toml": ITEM})
    (root / "b.json").symlink_to(secret)
    with pytest.raises(assay.SpecError) as caught:
        load_items(root)
    assert caught.value.location == str(root / "b.json")
    assert f"is a symbolic link to {secret}, outside the folder" in str(caught.value)


def test_a_link_to_a_file_inside_the_folder_loads(folder):
    root = folder({})
    (root / "shared").mkdir()
    (root / "shared" / "item.toml").write_text(ITEM)
    (root / "a.toml").symlink_to(root / "shared" / "item.toml")
    assert [case.id for case in load_items(root).cases] == ["trip.set_name"]


def test_entries_named_like_items_that_are_no_files_are_each_named(folder):
    root = folder({"a.toml": ITEM})
    (root / "dangling.json").symlink_to(root / "gone.json")
    (root / "loop1.json").symlink_to(root / "loop2.json")
    (root / "loop2.json").symlink_to(root / "loop1.json")
    (root / "folder.json").mkdir()
    os.mkfifo(root / "pipe.toml")
    (root / "notes.md").symlink_to("/nowhere")  # not named like an item: not read
    # Opening the FIFO would block for good (it has no writer): returning at all shows it was not.
    with pytest.raises(assay.SpecError) as caught:
        load_items(root)
    message = str(caught.value)
    assert caught.value.location == str(root)
    for part in (
        "dangling.json is a symbolic link to nothing (dangling)",
        "folder.json is a directory, not a file",
        "loop1.json is a symbolic link loop",
        "loop2.json is a symbolic link loop",
        "pipe.toml is a FIFO, not a file",
    ):
        assert part in message
    assert "notes.md" not in message


def test_a_socket_named_like_an_item_is_refused(folder):
    root = folder({"a.toml": ITEM})
    path = root / "sock.json"
    if len(str(path)) > 100:
        pytest.skip("the temporary path is too long for a Unix socket")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(assay.SpecError, match=r"sock\.json: is a socket, not a file"):
            load_items(root)


@pytest.mark.parametrize("kind", ["outside", "fifo", "dangling"])
def test_suite_toml_must_be_a_file_of_the_folder(folder, tmp_path, kind):
    root = folder({"a.toml": ITEM}, settings=None)
    settings = root / "suite.toml"
    if kind == "outside":
        (tmp_path / "elsewhere.toml").write_text('name = "x"\n')
        settings.symlink_to(tmp_path / "elsewhere.toml")
    elif kind == "fifo":
        os.mkfifo(settings)
    else:
        settings.symlink_to(root / "missing.toml")
    with pytest.raises(assay.SpecError) as caught:
        load_items(root)
    assert caught.value.location == str(settings)
