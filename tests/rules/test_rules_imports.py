"""rules/ runs on the standard library alone (make lint checks the project's own packages and its
dependencies with import-linter; this also catches a package pulled in by another one)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "rules"


def imported_top_levels(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_rules_imports_only_the_standard_library() -> None:
    files = sorted(RULES.glob("*.py"))
    assert len(files) >= 5
    outside = {
        f"{path.name}: {name}"
        for path in files
        for name in imported_top_levels(path)
        if name not in sys.stdlib_module_names and name != "__future__"
    }
    assert not outside
    # The check sees imports at all: game.py imports dataclasses.
    assert "dataclasses" in imported_top_levels(RULES / "game.py")
