"""Every reader of an untrusted file has a bound on size and work, and is fed past it.

Suite files (YAML suites and catalogs, item files, ``suite.toml``, pasted text), the project
configuration and replay ``body_file``s are read at most 16 MiB / 64 MiB; TOML dotted keys are
bounded by a tokeniser, whatever they quote; a suite folder holds at most 10,000 item files.
Each refusal is exit 2 naming the file.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.errors import SpecError
from assay_agents.limits import MAX_BODY_FILE_BYTES, MAX_SUITE_FILE_BYTES
from assay_agents.load import load_items, load_pasted
from assay_agents.load._documents import parse_toml

ITEM = 'id = "fixed"\n[input]\ntext = "hello"\n'
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def validate(*args: str) -> Any:
    return CliRunner().invoke(app, ["validate", *args])


def peak_bytes(work: Any) -> int:
    tracemalloc.start()
    try:
        work()
    except SpecError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


# A key quoting "=" (or "]") once hid the dots after it from the guard; the parser then
# spent quadratic time and memory on them (40 KB: 8 s and 2.4 GB).
DOTTED = {
    "quoted = in a key": lambda n: '"=".' + "k." * n + "k = 1\n",
    "quoted ] in a header": lambda n: '["]".' + "k." * n + "k]\n",
    "quoted = in a header": lambda n: '["=".' + "k." * n + "k]\n",
    "inline table": lambda n: "a = {" + "k." * n + "k = 1}\n",
    "spaced dots": lambda n: "a" + " . k" * n + " = 1\n",
    "literal quotes": lambda n: "'='." + "k." * n + "k = 1\n",
}


@pytest.mark.parametrize("shape", DOTTED)
def test_a_long_dotted_key_is_refused_by_tokenising_not_parsing(tmp_path: Path, shape: str) -> None:
    item = tmp_path / "item.toml"
    item.write_text(DOTTED[shape](5_000))
    done = validate(str(tmp_path))
    assert done.exit_code == 2, done.output
    assert str(item) in done.stderr and "nested more than 100 levels" in done.stderr
    assert peak_bytes(lambda: load_items(tmp_path)) < 20 * 1024 * 1024


def test_dots_in_values_strings_and_comments_are_no_key(tmp_path: Path) -> None:
    many = "k." * 300
    text = (
        f'a = "{many}"\nb = """\n{many}\n"""\nc = \'{many}\'\n# {many}\n'
        f"d = [{', '.join(['1.5'] * 300)}]\n" + ".".join(["k"] * 100) + " = 1\n"
    )
    data = parse_toml(text, "ok.toml")
    assert data["a"] == many and len(data["d"]) == 300


def _huge(path: Path, size: int) -> Path:
    with path.open("wb") as stream:
        stream.truncate(size + 1)  # sparse: nothing is written, st_size says it all
    return path


@pytest.mark.parametrize("name", ["suite.yaml", "paste.txt", "item.toml", "suite.toml"])
def test_a_suite_file_past_the_size_bound_is_refused_unread(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    if name in ("item.toml", "suite.toml"):
        (folder / ("item.toml" if name == "suite.toml" else "other.toml")).write_text(ITEM)
        target, path = folder, _huge(folder / name, MAX_SUITE_FILE_BYTES)
    else:
        target = path = _huge(folder / name, MAX_SUITE_FILE_BYTES)
    done = validate(str(target))
    assert done.exit_code == 2, done.output
    assert str(path) in done.stderr and "more than a suite file may be" in done.stderr


def test_the_project_configuration_is_read_with_the_same_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    paste = tmp_path / "p.txt"
    paste.write_text("Where is my order?\n")
    (tmp_path / "agent.py").write_text("def agent(text, ctx):\n    return 'here'\n")
    config = tmp_path / "assay.toml"
    config.write_text('"=".' + "k." * 5_000 + "k = 1\n")
    done = CliRunner().invoke(app, ["run", str(paste), "--agent", "agent.py:agent", "--quiet"])
    assert done.exit_code == 2, done.output
    assert str(config) in done.stderr and "nested more than 100 levels" in done.stderr
    _huge(config, MAX_SUITE_FILE_BYTES)
    done = CliRunner().invoke(app, ["run", str(paste), "--agent", "agent.py:agent", "--quiet"])
    assert done.exit_code == 2 and "more than a suite file may be" in done.stderr
    os.unlink(config)
    os.mkfifo(config)  # would block a reader forever: no configuration file, never opened
    done = CliRunner().invoke(app, ["run", str(paste), "--agent", "agent.py:agent", "--quiet"])
    assert done.exit_code in (0, 1), done.output


def _replayed(tmp_path: Path, body: Path) -> Path:
    (tmp_path / "api.toml").write_text(
        'id = "lookup"\n[input]\ntext = "Where is order 42?"\n[[api]]\nmethod = "GET"\n'
        f'url = "https://shop.example/orders"\n[api.response]\nbody_file = "{body.name}"\n'
    )
    return tmp_path


@pytest.mark.parametrize("kind", ["huge", "fifo", "deep"])
def test_a_replay_body_file_has_a_size_bound_and_must_be_a_file(tmp_path: Path, kind: str) -> None:
    body = tmp_path / "body.bin"
    if kind == "huge":
        _huge(body, MAX_BODY_FILE_BYTES)
        expected = "more than a replay body_file may be"
    elif kind == "fifo":
        os.mkfifo(body)
        expected = "not a regular file"
    else:
        body.write_text("[" * 100_000 + "]" * 100_000)
        expected = "nested too deeply"
    done = validate(str(_replayed(tmp_path, body)))
    assert done.exit_code == 2, done.output
    assert str(body) in done.stderr and expected in done.stderr
    assert "body_file" in done.stderr


def test_a_paste_of_more_prompts_than_the_bound_is_refused_naming_the_line(tmp_path: Path) -> None:
    from assay_agents.load._pasted_lines import MAX_PROMPTS

    path = tmp_path / "many.txt"
    path.write_text("a\n" * (MAX_PROMPTS + 5))
    with pytest.raises(SpecError) as raised:
        load_pasted(path, agent=lambda text, ctx: "x")
    assert raised.value.location == str(path)
    assert f"more than {MAX_PROMPTS:,} prompts (line {MAX_PROMPTS + 1})" in str(raised.value)


def test_a_folder_of_more_item_files_than_the_bound_is_refused_naming_it(tmp_path: Path) -> None:
    from assay_agents.limits import MAX_ITEM_FILES

    folder = tmp_path / "suite"
    folder.mkdir()
    # Empty files: each would be a broken item if it were read, so the refusal must come first.
    for number in range(MAX_ITEM_FILES + 1):
        (folder / f"{number:05}.toml").touch()
    done = validate(str(folder))
    assert done.exit_code == 2, done.output
    assert str(folder) in done.stderr
    assert f"more than {MAX_ITEM_FILES:,} item files" in done.stderr
    assert "broken" not in done.stderr


@pytest.mark.parametrize(
    ("name", "document"),
    [
        ("suite.yaml", lambda n: "name: S\ngroups:\n- key: g\n  scenarios:\n" + "  - q\n" * n),
        ("suite.json", lambda n: '{"name": "S", "cases": [' + ",".join(["1"] * n) + "]}"),
        ("item.toml", lambda n: "id = 'x'\ntags = [" + ",".join(["1"] * n) + "]\n"),
    ],
)
def test_a_document_with_a_list_past_the_entry_bound_is_refused_naming_it(
    tmp_path: Path, name: str, document: Any
) -> None:
    from assay_agents.limits import MAX_DOCUMENT_ENTRIES

    path = tmp_path / name
    path.write_text(document(MAX_DOCUMENT_ENTRIES + 1), encoding="utf-8")
    done = validate(str(path))
    assert done.exit_code == 2, done.output
    assert str(path) in done.stderr
    assert f"more than {MAX_DOCUMENT_ENTRIES:,} entries" in done.stderr
