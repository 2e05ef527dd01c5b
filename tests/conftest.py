"""Test-session guards shared by every test."""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("collector", "evaluator", "simulator", "schemas", "providers")


class _BareFolderImports(MetaPathFinder):
    """Refuse ``import collector`` & co. resolving to the repository's own folders.

    pytest puts the checkout on ``sys.path``, so a bare import (or a monkeypatch target
    string such as ``"evaluator.x.y"``) would load a second copy of a tracesim module
    beside ``tracesim.evaluator.x`` and patch the wrong one without failing.
    """

    def find_spec(self, fullname: str, path=None, target=None) -> ModuleSpec | None:
        if path is not None or fullname not in FOLDERS:
            return None
        spec = PathFinder.find_spec(fullname)
        if spec and spec.origin and Path(spec.origin).resolve().parent == ROOT / fullname:
            raise ImportError(f"import tracesim.{fullname}, not the bare folder {fullname!r}")
        return None


sys.meta_path.insert(0, _BareFolderImports())
