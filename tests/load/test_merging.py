import json
import os

import pytest
import yaml

import assay_agents as assay
from assay_agents.load import Catalog, merge_scenarios, save_catalog
from assay_agents.load.merging import differences, open_catalog

DESK = """\
catalog: support_desk
name: Support Desk
owner_team: support
products:
  - key: triage
    agent: TriageAgent
    sets:
      - key: smoke
        criteria: [tone]
        scenarios:
          - key: refund_request
            prompt: A customer asks for a refund on order 1042.
            expect:
              tools: [lookup_order]
            notes: Looks the order up first.
          - key: orders_1
            prompt: Where is my order?
"""

PASTE = "# Orders\nWhere is my order?\nCancel it | not_contains: I cannot\n"


@pytest.fixture
def desk(tmp_path):
    path = tmp_path / "desk.yml"
    path.write_text(DESK)
    return path


def _merge(path, text, **options):
    return merge_scenarios(open_catalog(path), product="triage", set="smoke", text=text, **options)


def _keys(catalog):
    return [s.key for s in catalog.set("triage", "smoke").scenarios]


def test_a_keyless_scenario_takes_the_next_group_key_the_set_does_not_hold(desk):
    change = _merge(desk, PASTE)
    assert change.added == ("orders_2", "orders_3")
    assert _keys(change.catalog) == ["refund_request", "orders_1", "orders_2", "orders_3"]
    save_catalog(change.catalog, desk)
    # The same keyless paste merged twice is added twice, under new keys.
    again = _merge(desk, PASTE)
    assert again.added == ("orders_4", "orders_5")


def test_reserved_keys_are_compared_ignoring_case(tmp_path):
    path = tmp_path / "desk.yml"
    path.write_text(DESK.replace("key: orders_1", "key: ORDERS_1"))
    assert _merge(path, PASTE).added == ("orders_2", "orders_3")


def test_a_named_key_the_set_holds_is_updated_in_place_with_only_what_the_paste_gives(desk):
    change = _merge(desk, "Refund order 1042 please | key: refund_request | tools: refund_order")
    assert (change.added, change.updated, change.removed) == ((), ("refund_request",), ())
    updated = change.catalog.set("triage", "smoke").scenarios[0]
    assert updated.key == "refund_request" and updated.prompt == "Refund order 1042 please"
    assert updated.expect.tools == ("refund_order",)
    assert updated.notes is None  # notes the paste leaves out are cleared
    unchanged = _merge(desk, "Where is my order? | key: orders_1")
    assert unchanged.unchanged == ("orders_1",) and not unchanged.changed


def test_a_key_prefix_namespaces_made_keys_and_needs_letters_or_digits(desk):
    assert _merge(desk, PASTE, key_prefix="batch2").added == (
        "batch2_orders_1",
        "batch2_orders_2",
    )
    with pytest.raises(assay.SpecError, match="key prefix '__' has no letters or digits"):
        _merge(desk, PASTE, key_prefix="__")


def test_replacing_makes_the_set_hold_exactly_the_paste(desk):
    change = _merge(desk, "Where is my order? | key: orders_1\nNew one", replace_all=True)
    assert change.removed == ("refund_request",)
    assert change.unchanged == ("orders_1",) and change.added == ("scenario_1",)
    assert _keys(change.catalog) == ["orders_1", "scenario_1"]
    # The set's own settings stay.
    assert change.catalog.set("triage", "smoke").criteria == ("tone",)


def test_production_only_scenarios_are_selected_at_import(desk):
    paste = json.dumps([{"prompt": "a"}, {"prompt": "b", "production_only": True}, {"prompt": "c"}])
    left = _merge(desk, paste)
    assert left.added == ("scenario_1", "scenario_3") and left.left_out == ("scenario_2",)
    kept = _merge(desk, paste, include_production_only=True)
    assert kept.added == ("scenario_1", "scenario_2", "scenario_3") and kept.left_out == ()
    with pytest.raises(assay.SpecError, match="all are production-only"):
        _merge(desk, json.dumps([{"prompt": "b", "production_only": True}]))


def test_yaml_and_json_pastes_merge_like_lines(desk):
    grouped = (
        "groups:\n  - key: billing\n    scenarios:\n      - prompt: Send my invoice\n"
        "        expect: {tools: [send_invoice]}\n"
    )
    assert _merge(desk, grouped).added == ("billing_1",)
    assert _merge(desk, json.dumps(["Hello"])).added == ("scenario_1",)


def test_a_missing_product_or_set_is_made_and_a_missing_file_is_a_new_catalog(tmp_path):
    path = tmp_path / "fresh.yml"
    change = merge_scenarios(open_catalog(path), product="billing", set="smoke", text=PASTE)
    digest = save_catalog(change.catalog, path)
    loaded = Catalog.load(path)
    assert loaded.key == "fresh" and loaded.digest() == digest
    assert [s.key for s in loaded.set("billing", "smoke").scenarios] == ["orders_1", "orders_2"]


def test_the_result_is_written_as_the_canonical_yaml_with_its_digest(desk):
    change = _merge(desk, PASTE)
    digest = save_catalog(change.catalog, desk)
    text = desk.read_text()
    assert text == change.catalog.to_yaml() and digest == Catalog.load(desk).digest()
    document = yaml.safe_load(text)
    assert list(document) == ["catalog", "name", "owner_team", "products"]
    assert document["products"][0]["sets"][0]["scenarios"][1] == {
        "key": "orders_1",
        "prompt": "Where is my order?",
    }


def test_a_write_that_fails_leaves_the_old_file_whole_and_nothing_beside_it(desk, monkeypatch):
    change = _merge(desk, PASTE)

    def crash(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="No space left"):
        save_catalog(change.catalog, desk)
    assert desk.read_text() == DESK
    assert sorted(p.name for p in desk.parent.iterdir()) == ["desk.yml"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("suite.yml", "suite: s\ngroups: []\n", "is not a catalog document"),
        ("desk.json", "{}", "a catalog to write into is a YAML file"),
        ("broken.yml", "catalog: x\nproducts: [\n", "invalid YAML"),
    ],
)
def test_only_a_yaml_catalog_is_written_into(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(assay.SpecError, match=message):
        open_catalog(path)


def test_a_paste_with_nothing_to_import_is_refused(desk):
    with pytest.raises(assay.SpecError, match="holds no scenarios to import"):
        _merge(desk, "# Only a heading\n")


def test_differences_by_product_set_and_scenario(desk):
    before = open_catalog(desk)
    after = _merge(desk, "Refund now | key: refund_request\n" + PASTE).catalog
    found = [(d.kind, d.what, d.path, d.fields) for d in differences(before, after)]
    assert found == [
        ("changed", "scenario", "triage/smoke/refund_request", ("prompt", "expect", "notes")),
        ("added", "scenario", "triage/smoke/orders_2", ()),
        ("added", "scenario", "triage/smoke/orders_3", ()),
    ]
    assert differences(before, before) == []


def test_differences_of_products_sets_their_settings_and_order(tmp_path):
    before = open_catalog(_written(tmp_path, "a.yml", DESK))
    edited = (
        DESK.replace("name: Support Desk", "name: Support")
        .replace("criteria: [tone]", "criteria: [tone, answer_relevancy]")
        .replace(
            "          - key: refund_request\n"
            "            prompt: A customer asks for a refund on order 1042.\n"
            "            expect:\n"
            "              tools: [lookup_order]\n"
            "            notes: Looks the order up first.\n",
            "",
        )
        + "  - key: billing\n    sets:\n      - key: smoke\n        scenarios:\n"
        "          - key: invoice\n            prompt: Send my invoice\n"
        "          - key: refund_request\n            prompt: x\n"
    )
    after = open_catalog(_written(tmp_path, "b.yml", edited))
    found = [(d.kind, d.what, d.path, d.fields) for d in differences(before, after)]
    assert found == [
        ("changed", "catalog", "support_desk", ("name",)),
        ("changed", "set", "triage/smoke", ("criteria",)),
        ("removed", "scenario", "triage/smoke/refund_request", ()),
        ("added", "product", "billing", ()),
    ]
    # The same scenarios in another order: the set changed, no scenario did.
    head, refund, orders = DESK.split("          - key: ")
    swapped = f"{head}          - key: {orders.rstrip()}\n          - key: {refund}"
    reordered = differences(before, open_catalog(_written(tmp_path, "c.yml", swapped)))
    assert [(d.kind, d.path, d.fields) for d in reordered] == [
        ("changed", "triage/smoke", ("scenarios order",))
    ]


def _written(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("paste", "message"),
    [
        (
            '[{"key": "bad\\u0007key", "prompt": "x"}]',
            "paste.json: [0].key: must not contain control",
        ),
        ('[{"key": "nul\\u0000", "prompt": "x"}]', "paste.json: [0].key: must not contain control"),
        ('[{"prompt": "x"}, {"key": "   ", "prompt": "y"}]', "paste.json: [1].key: must be"),
        ('[{"key": "k", "prompt": "   "}]', "paste.json: [0].prompt"),
    ],
)
def test_a_merge_refuses_what_writing_would_refuse_naming_the_paste(desk, paste, message):
    # The preview is the merge: it must refuse exactly what applying it would.
    with pytest.raises(assay.SpecError) as raised:
        _merge(desk, paste, location="paste.json")
    assert message in str(raised.value)


BOM = "\ufeff"


def test_a_paste_starting_with_a_byte_order_mark_is_read_as_its_document(desk, tmp_path):
    from assay_agents.load.merging import read_paste

    file = tmp_path / "paste.json"
    file.write_text(BOM + '[{"key": "bom", "prompt": "x"}]', encoding="utf-8")
    for text, location in (
        read_paste(file),
        read_paste(None, BOM + '[{"key": "bom", "prompt": "x"}]'),
    ):
        assert _merge(desk, text, location=location).added == ("bom",)
    assert _merge(desk, BOM + '{"key": "bom", "prompt": "x"}').added == ("bom",)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("s.yml", "suite: s\ngroups:\n  - key: g\n    scenarios:\n      - {key: k, prompt: hi}\n"),
        (
            "s.json",
            '{"suite": "s", "groups": [{"key": "g", "scenarios": [{"key": "k", "prompt": "hi"}]}]}',
        ),
        ("s.toml", 'id = "k"\n[input]\ntext = "hi"\n'),
        ("s.txt", "# G\nhi | key: k\n"),
    ],
)
def test_suite_files_starting_with_a_byte_order_mark_load(tmp_path, name, text):
    from assay_agents.load.opening import Selection, open_suite

    file = tmp_path / name
    file.write_text(BOM + text, encoding="utf-8")
    suite = open_suite(file, Selection(imports=False))
    assert [case.id for case in suite.cases] == ["k"]


@pytest.mark.parametrize(
    ("product", "set_"), [("a/b", "smoke"), ("triage", "new\nline"), ("", "s")]
)
def test_a_merge_refuses_a_product_or_set_key_it_could_not_name(desk, product, set_):
    with pytest.raises(assay.SpecError) as raised:
        merge_scenarios(open_catalog(desk), product=product, set=set_, text=PASTE)
    assert ("product" if product != "triage" else "set") in str(raised.value)


def test_replacing_keeps_a_production_only_scenario_the_paste_names_but_leaves_out(desk):
    live = '[{"key": "live", "prompt": "From production", "production_only": true}]'
    save_catalog(_merge(desk, live, include_production_only=True).catalog, desk)
    paste = (
        '[{"key": "refund_request", "prompt": "Refund?"},'
        ' {"key": "live", "prompt": "Changed", "production_only": true}]'
    )
    change = _merge(desk, paste, replace_all=True)
    assert change.removed == ("orders_1",) and change.left_out == ("live",)
    assert "live" not in change.unchanged + change.updated
    held = {s.key: s.prompt for s in change.catalog.set("triage", "smoke").scenarios}
    assert held == {"refund_request": "Refund?", "live": "From production"}
    # Included, it is replaced like any other.
    included = _merge(desk, paste, replace_all=True, include_production_only=True)
    assert included.updated == ("refund_request", "live")


def test_a_named_key_the_set_holds_in_another_case_is_updated_in_place(desk):
    change = _merge(desk, "Where is it now? | key: Orders_1")
    assert change.updated == ("orders_1",) and change.added == ()
    assert _keys(change.catalog) == ["refund_request", "orders_1"]
    held = {s.key: s.prompt for s in change.catalog.set("triage", "smoke").scenarios}
    assert held["orders_1"] == "Where is it now?"


def test_a_paste_naming_two_keys_equal_ignoring_case_is_refused(desk):
    with pytest.raises(assay.SpecError, match=r"'A'.*ignoring case"):
        _merge(desk, "one | key: a\ntwo | key: A\n")


def test_a_read_only_catalog_is_refused_and_left_as_it_was(desk):
    os.chmod(desk, 0o444)
    with pytest.raises(assay.SpecError, match=r"desk\.yml: is read-only"):
        save_catalog(_merge(desk, PASTE).catalog, desk)
    assert desk.read_text() == DESK and desk.stat().st_mode & 0o777 == 0o444


def test_a_rewritten_catalog_keeps_its_permissions(desk):
    os.chmod(desk, 0o640)
    save_catalog(_merge(desk, PASTE).catalog, desk)
    assert desk.stat().st_mode & 0o777 == 0o640
