"""The house rules the package's imports keep, read from the source with ``ast``.

- no import cycle between modules, counting imports inside functions too (a lazy
  import hides a cycle from start-up, not from the reader);
- a module imports only its own layer or lower ones (the layers below, bottom first);
- no command module imports another command, and none imports the ``cli`` group;
- no private name (``_x``) is imported or used across modules;
- a module over 600 lines says why in its docstring ("Kept in one module: ...").
"""

from __future__ import annotations

import ast
import os
from typing import Dict, List, Set, Tuple

import pytest

ROOT = os.path.dirname(os.path.abspath(__file__))
while not os.path.isdir(os.path.join(ROOT, "animsmith")):
    ROOT = os.path.dirname(ROOT)
PACKAGE = os.path.join(ROOT, "animsmith")

# Bottom first. A module belongs to the longest prefix that names it.
LAYERS: Tuple[Tuple[str, ...], ...] = (
    ("animsmith", "animsmith.model", "animsmith.errors", "animsmith.results", "animsmith.memo",
     "animsmith.numtext", "animsmith.runtime", "animsmith.text", "animsmith.hints"),
    ("animsmith.core", "animsmith.engine"),
    ("animsmith.io",),
    ("animsmith.config",),
    ("animsmith.checks",),
    ("animsmith.render",),
    ("animsmith.lint",),
    ("animsmith.report", "animsmith.ci", "animsmith.transform", "animsmith.sim"),
    ("animsmith.commands",),
    ("animsmith.cli", "animsmith.__main__"),
)
MAX_LINES = 600
SIZE_REASON = "Kept in one module:"


def _module_name(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[: -len(".py")].replace(os.sep, ".")
    return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel


def _sources() -> Dict[str, str]:
    out = {}
    for folder, _, names in os.walk(PACKAGE):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                out[_module_name(path)] = path
    return out


SOURCES = _sources()


def _target(current: str, is_package: bool, level: int, module) -> str:
    if not level:
        return module or ""
    parts = current.split(".") if is_package else current.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))


def _read_imports():
    """({module: {imported module: line}}, [private-name uses across modules])."""
    edges: Dict[str, Dict[str, int]] = {}
    private: List[str] = []
    for mod, path in SOURCES.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        is_package = path.endswith("__init__.py")
        out = edges.setdefault(mod, {})
        aliases: Dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in SOURCES:
                        out.setdefault(alias.name, node.lineno)
                        if alias.asname:
                            aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                base = _target(mod, is_package, node.level, node.module)
                if not base.startswith("animsmith"):
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in SOURCES:
                        out.setdefault(sub, node.lineno)
                        aliases[alias.asname or alias.name] = sub
                    elif base in SOURCES:
                        out.setdefault(base, node.lineno)
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            private.append(f"{mod}:{node.lineno} imports {base}.{alias.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                private.append(f"{mod}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
        out.pop(mod, None)
    return edges, private


EDGES, PRIVATE = _read_imports()


def _cycles(edges: Dict[str, Dict[str, int]]) -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _layer(mod: str):
    best = None
    for i, group in enumerate(LAYERS):
        for prefix in group:
            if mod == prefix or mod.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (i, len(prefix))
    return None if best is None else best[0]


def test_the_reader_sees_the_package():
    # The rules below are only as good as the graph: it must hold the modules we know of.
    assert "animsmith.cli" in SOURCES and "animsmith.core" in {m.rsplit(".", 1)[0] for m in SOURCES}
    assert sum(len(v) for v in EDGES.values()) > 150


def test_the_cycle_finder_finds_a_known_cycle():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_even_through_function_level_imports():
    assert _cycles(EDGES) == []


def test_no_module_imports_a_higher_layer():
    upward = [f"{a}:{line} -> {b}" for a, targets in EDGES.items() for b, line in targets.items()
              if _layer(a) is not None and _layer(b) is not None and _layer(b) > _layer(a)]
    assert upward == []


def test_every_module_has_a_layer():
    assert [m for m in SOURCES if _layer(m) is None] == []


def test_commands_import_no_other_command_and_not_the_cli_group():
    bad = [f"{a}:{line} -> {b}" for a, targets in EDGES.items() for b, line in targets.items()
           if a.startswith("animsmith.commands.") and (
               b == "animsmith.cli"
               or (b.startswith("animsmith.commands.") and not b.rsplit(".", 1)[1].startswith("_")))]
    assert bad == []


def test_no_private_name_crosses_a_module():
    assert PRIVATE == []


@pytest.mark.parametrize("mod", sorted(SOURCES))
def test_a_long_module_says_why(mod):
    with open(SOURCES[mod], encoding="utf-8") as fh:
        text = fh.read()
    if text.count("\n") <= MAX_LINES:
        return
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert SIZE_REASON in doc, f"{mod} has {text.count(chr(10))} lines and no '{SIZE_REASON}' reason"
