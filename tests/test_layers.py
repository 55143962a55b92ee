"""The package's import graph: no module imports itself back through others."""

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "assay_agents"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SOURCE.rglob("*.py"):
        parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Every Assay module ``path`` imports: at the top, under TYPE_CHECKING or in a function."""
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assay"):
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                targets.add(name if name in known else node.module)
        elif isinstance(node, ast.Import):
            targets.update(a.name for a in node.names if a.name.startswith("assay"))
    return targets & known.keys()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle() -> None:
    known = _modules()
    graph = {name: _imports(path, known) for name, path in known.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _package(module: str) -> str:
    """A module's unit: ``assay_agents.load.items`` is ``load``, ``assay_agents.text`` ``assay``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and _is_package(parts[1])) else "assay"


def _is_package(name: str) -> bool:
    return (SOURCE / name / "__init__.py").exists()


def _imported_modules(path: Path) -> list[tuple[int, str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assay"):
            found.append((node.lineno, node.module or "", [a.name for a in node.names]))
    return found


def _private_imports_across_packages() -> list[str]:
    offences = []
    for name, path in _modules().items():
        own = _package(name)
        for line, module, names in _imported_modules(path):
            target = _package(module)
            private_module = any(part.startswith("_") for part in module.split(".")[1:])
            private_names = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if target != own and (private_module or private_names):
                offences.append(f"{path.relative_to(SOURCE)}:{line} from {module}")
    return offences


def test_no_private_module_is_imported_from_another_package() -> None:
    # What one package shares with another is public in it; a private module may change freely.
    assert _private_imports_across_packages() == []


#: The layers, lowest first (the README's "Layout"): a module imports only from its own layer
#: or one before it. Modules at the top of the package that everything uses are the base.
LAYERS = (
    (
        "base",
        {
            "atomic",
            "errors",
            "limits",
            "text",
            "lazy",
            "keys",
            "exit_codes",
            "startup",
            "trust",
            "ratelimit",
        },
    ),
    ("spec", {"spec"}),
    ("agent", {"agent", "agents"}),
    ("results", {"results", "replay"}),
    ("checks and judging", {"checks", "judging", "judges"}),
    ("load", {"load"}),
    ("runner", {"runner", "otel"}),
    ("compare", {"compare"}),
    ("record", {"record"}),
    ("store", {"store"}),
    ("evaluation", {"evaluation"}),
    ("report", {"report"}),
    ("front ends", {"testing", "cli", "pytest_plugin", "ray", "dashboard"}),
    ("the package", {"assay"}),
)


def _layer_of(module: str) -> int:
    parts = module.split(".")
    unit = parts[1] if len(parts) > 1 else "assay"
    for rank, (_, units) in enumerate(LAYERS):
        if unit in units:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS and the README")


def _imports_upwards() -> list[str]:
    offences = []
    for name, path in _modules().items():
        own = _layer_of(name)
        for line, module, names in _imported_modules(path):
            targets = [module] if module != "assay_agents" else [f"assay_agents.{n}" for n in names]
            for target in targets:
                if target == "assay_agents.__version__":
                    continue  # the version string, not a layer
                if _layer_of(target) > own:
                    offences.append(f"{path.relative_to(SOURCE)}:{line} imports {target}")
    return offences


def test_no_layer_imports_one_above_it() -> None:
    assert _imports_upwards() == []


def test_the_layer_check_sees_an_import_upwards(monkeypatch) -> None:
    planted = {"assay_agents.spec.planted": SOURCE / "spec" / "case.py"}
    monkeypatch.setattr(
        "test_layers._imported_modules", lambda path: [(1, "assay_agents.store.store", ["Store"])]
    )
    monkeypatch.setattr("test_layers._modules", lambda: planted)
    assert _imports_upwards() == ["spec/case.py:1 imports assay_agents.store.store"]
