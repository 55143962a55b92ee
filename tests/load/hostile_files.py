"""A corpus of hostile suite files: alias bombs and deep nesting, in every format.

Each entry is ``(name, text)``: the file name says which loader reads it. Every one of them
must be refused quickly with a spec error naming the file.
"""

from __future__ import annotations

import json

BOMB_LEVELS = 9
BOMB_WIDTH = 9


def alias_bomb(levels: int = BOMB_LEVELS, width: int = BOMB_WIDTH) -> str:
    """Billion laughs: each anchor lists the previous one ``width`` times (width**levels)."""
    lines = [f"- &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"- &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines)


def indented(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines())


def bomb_in_a_suite() -> str:
    """A valid-looking YAML suite whose scenario params hold the bomb."""
    return (
        "suite: laughs\ngroups:\n  - key: g\n    scenarios:\n      - key: s\n"
        "        prompt: hello\n        params:\n          lol:\n"
        + indented(alias_bomb(), 12)
        + "\n"
    )


def bomb_in_a_catalog() -> str:
    """A catalog whose set metadata holds the bomb (metadata is kept as it is)."""
    return (
        "catalog: laughs\nproducts:\n  - key: p\n    sets:\n      - key: s\n"
        "        scenarios:\n          - {key: a, prompt: hello}\n        lol:\n"
        + indented(alias_bomb(), 10)
        + "\n"
    )


def merge_key_bomb(levels: int = 12) -> str:
    """Merge keys (``<<``) that each merge the previous mapping twice over."""
    lines = ["suite: merges", "m0: &m0 {a: 1, b: 2, c: 3, d: 4}"]
    for level in range(1, levels):
        lines.append(
            f"m{level}: &m{level} {{x: *m{level - 1}, y: *m{level - 1}, <<: *m{level - 1}}}"
        )
    return "\n".join(lines) + "\n"


def recursive_alias() -> str:
    """An anchor whose node contains an alias to itself."""
    return "suite: loop\ngroups: &g [*g]\n"


def deep_json(depth: int = 5_000) -> str:
    """An item whose setup nests ``depth`` lists."""
    return '{"id": "deep", "input": {"text": "x"}, "setup": ' + "[" * depth + "]" * depth + "}"


def deep_json_objects(depth: int = 5_000) -> str:
    """An item whose params nest ``depth`` objects."""
    return (
        '{"id": "deep", "input": {"text": "x"}, "params": '
        + '{"a": ' * depth
        + "1"
        + "}" * depth
        + "}"
    )


def deep_toml(depth: int = 500) -> str:
    """An item whose setup nests ``depth`` inline arrays."""
    return 'id = "deep"\nsetup = ' + "[" * depth + "]" * depth + '\n[input]\ntext = "x"\n'


def deep_toml_tables(depth: int = 500) -> str:
    """An item whose params nest ``depth`` tables through one dotted header."""
    header = ".".join(f"t{index}" for index in range(depth))
    return f'id = "deep"\n[input]\ntext = "x"\n[params.{header}]\nx = 1\n'


def deep_yaml_flow(depth: int = 500) -> str:
    """A YAML suite with a scenario's params nested ``depth`` flow lists deep."""
    return (
        "suite: deep\ngroups:\n  - key: g\n    scenarios:\n      - key: s\n"
        "        prompt: hello\n        params: {x: " + "[" * depth + "]" * depth + "}\n"
    )


def deep_yaml_block(depth: int = 500) -> str:
    """A YAML suite nested ``depth`` block mappings deep."""
    lines = ["suite: deep", "description:"]
    lines += [" " * (level + 1) + f"k{level}:" for level in range(depth)]
    return "\n".join(lines) + " 1\n"


def alias_chain(length: int = 300) -> str:
    """Aliases nested in each other: shallow as written, ``length`` deep once expanded."""
    lines = ["suite: chain", "a0: &a0 [1]"]
    lines += [f"a{index}: &a{index} [*a{index - 1}]" for index in range(1, length)]
    return "\n".join(lines) + "\n"


#: YAML suites (or catalogs): ``assay-agents validate`` and ``load_suite`` read them.
YAML_FILES = [
    ("bomb.yml", bomb_in_a_suite()),
    ("catalog_bomb.yml", bomb_in_a_catalog()),
    ("merge_bomb.yaml", merge_key_bomb()),
    ("recursive.yml", recursive_alias()),
    ("deep_flow.yml", deep_yaml_flow()),
    ("deep_block.yml", deep_yaml_block()),
    ("alias_chain.yml", alias_chain()),
    ("deep.json", json.dumps({"suite": "deep"})[:-1] + ', "x": ' + "[" * 5_000 + "]" * 5_000 + "}"),
]

#: Item files: a directory holding one of them is a suite.
ITEM_FILES = [
    ("deep_lists.json", deep_json()),
    ("deep_objects.json", deep_json_objects()),
    ("deep_arrays.toml", deep_toml()),
    ("deep_tables.toml", deep_toml_tables()),
]

#: Pasted text files that are YAML documents.
PASTED_FILES = [
    ("bomb.txt", bomb_in_a_suite()),
    ("deep.md", deep_yaml_flow()),
    ("deep_json.txt", "[" * 5_000 + "]" * 5_000),
]
