"""One history per project: found upwards, configured once, started with `assay-agents init`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.load.config import find_config


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_init_then_run_from_a_subfolder_keeps_one_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitignore").write_text("build/", encoding="utf-8")
    made = invoke("init")
    assert made.exit_code == 0, made.output
    assert (tmp_path / "assay_suite.py").is_file() and (tmp_path / "assay.toml").is_file()
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "build/\n.assay/\n"
    first = invoke("run", "assay_suite.py", "--quiet")
    assert first.exit_code == 0, first.output
    assert f"database: sqlite:///{tmp_path.resolve()}/.assay/assay.db" in first.output
    nested = tmp_path / "examples" / "deeper"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    second = invoke("run", str(tmp_path / "assay_suite.py"), "--quiet")
    assert second.exit_code == 0, second.output
    assert "Baseline: " in second.output and "2 of 2 unchanged item(s) compared" in second.output
    assert not (nested / ".assay").exists()
    again = invoke("init", str(tmp_path))
    assert again.output.count("kept") == 3  # nothing is overwritten


def test_init_adds_a_tool_table_to_an_existing_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert invoke("init").exit_code == 0
    config = find_config()
    assert config.path == tmp_path / "pyproject.toml" and config.concurrency == 8
    assert not (tmp_path / "assay.toml").exists()


def test_the_configuration_supplies_defaults_a_flag_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.assay]\ndatabase = "sqlite:///history/evals.db"\ngate = { min_pass_rate = 1.0 }\n',
        encoding="utf-8",
    )
    suite = tmp_path / "s.py"
    suite.write_text(
        "import assay_agents as assay\nfrom assay_agents import checks\n"
        "suite = assay.Suite('S', agent=lambda t, c: t, "
        "checks=[checks.contains('ok')])\n"
        "suite.case('ok')\nsuite.case('nope')\n",
        encoding="utf-8",
    )
    gated = invoke("run", "s.py", "--quiet")
    assert gated.exit_code == 1 and "deterministic pass rate 50% < 100%" in gated.output
    assert (tmp_path / "history" / "evals.db").is_file() and not (tmp_path / ".assay").exists()
    loosened = invoke("run", "s.py", "--quiet", "--gate", "min_pass_rate=0.5")
    assert "gate: passed" in loosened.output


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[tool.assay]\nconcurency = 4\n", "tool.assay.concurency"),
        ('[tool.assay]\nconcurrency = "many"\n', "tool.assay.concurrency"),
        ("[tool.assay]\nconcurrency = 0\n", "tool.assay.concurrency"),
        ("[tool.assay\n", None),
    ],
)
def test_a_bad_configuration_exits_2_naming_the_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, field: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    (tmp_path / "s.py").write_text(
        "import assay_agents as assay\nsuite = assay.Suite('S', agent=lambda t, c: "
        "t)\nsuite.case('q')\n",
        encoding="utf-8",
    )
    done = invoke("run", "s.py", "--quiet")
    assert done.exit_code == 2, done.output
    assert "pyproject.toml" in done.output and (field is None or field in done.output)


def test_history_with_a_broken_configuration_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "assay.toml").write_text("concurency = 8\n", encoding="utf-8")
    done = invoke("history")
    assert done.exit_code == 2 and "assay.toml" in done.output and "concurency" in done.output
    (tmp_path / "assay.toml").write_text('concurrency = "eight"\n', encoding="utf-8")
    assert "must be a whole number" in invoke("history").output


@pytest.mark.parametrize("name", [".gitignore", "assay_suite.py", "pyproject.toml", "assay.toml"])
def test_init_refuses_a_link_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (project / name).symlink_to(Path("..") / "victim.txt")
    monkeypatch.chdir(project)
    done = invoke("init")
    assert done.exit_code == 2, done.output
    assert f"{name}: is a symbolic link" in done.output
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert sorted(path.name for path in project.iterdir()) == [name]


def test_init_refuses_a_dangling_link_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "assay_suite.py").symlink_to(Path("..") / "planted.py")
    monkeypatch.chdir(project)
    done = invoke("init")
    assert done.exit_code == 2 and "assay_suite.py: is a symbolic link" in done.output
    assert not (tmp_path / "planted.py").exists()
    assert not (project / "assay.toml").exists() and not (project / ".gitignore").exists()


def test_init_refuses_a_gitignore_that_is_not_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    os.mkfifo(tmp_path / ".gitignore")  # reading it would wait for a writer forever
    monkeypatch.chdir(tmp_path)
    done = invoke("init")
    assert done.exit_code == 2 and ".gitignore: is not a regular file" in done.output
    assert not (tmp_path / "assay_suite.py").exists()
