"""Whether the search runs compiled (deploy/compile_robots.py), and the guard against a stale build.

A compiled module sits beside its source and is imported before it, so an extension built from
an older version of the source would run the old code unseen. The build records a digest of each
source it compiled (``STAMP``); a compiled module whose source no longer matches its digest stops
the import with a sentence saying what to run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import ModuleType

import rules
from rules import cards, play, tricks

from . import know, passing, policy, search

#: The digests of the sources the compiled build was made from, by module name.
STAMP = Path(__file__).with_name("_compiled.json")
_PACKAGES = {"robots": Path(__file__).parent, "rules": Path(rules.__file__).parent}
_MODULES: tuple[ModuleType, ...] = (know, policy, search, passing, cards, play, tricks)


def source_of(module_name: str) -> Path:
    """The ``.py`` file of a module of robots/ or rules/ (``robots.search``)."""
    package, name = module_name.split(".")
    return _PACKAGES[package] / f"{name}.py"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_modules() -> list[str]:
    """The names of the search's modules imported from a compiled extension."""
    return [m.__name__ for m in _MODULES if not str(m.__file__).endswith(".py")]


def check() -> None:
    """ImportError when a compiled module was built from another version of its source."""
    names = compiled_modules()
    if not names:
        return
    try:
        stamp = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        stamp = {}
    for name in names:
        if stamp.get(name) != digest(source_of(name)):
            raise ImportError(
                f"{name} is compiled from another version of {source_of(name)}: run "
                "`make robots-compiled` again, or `python -m deploy.compile_robots --clean`")


#: The search runs compiled (every one of its modules).
COMPILED = len(compiled_modules()) == len(_MODULES)
check()

__all__ = ["COMPILED", "STAMP", "check", "compiled_modules", "digest", "source_of"]
