"""The examples shipped with tracesim (`tracesim examples`): find them, describe them, copy
one into a folder ready to run offline.

An example is a folder of the repository's `examples/` with a `config.yaml`; it may import
helper folders (`from examples.shared_tools import ...`) and third-party packages that an
extra installs (`agents` -> `tracesim[agents]`). Both are read from its Python sources, so a
new example needs no registration here. In a checkout the folder is the repository's; an
installed wheel carries it as the data package `tracesim.bundled_examples`.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EXTRA_OF_MODULE", "Example", "copy_example", "examples_root", "list_examples"]

EXTRA_OF_MODULE: dict[str, str] = {"agents": "agents", "a2a": "a2a", "mcp": "mcp"}
"""Top-level import name -> the tracesim extra that installs it."""

_SKIP = {"results", "__pycache__", ".pytest_cache"}
"""Folders never copied: a previous run's outputs and caches."""


@dataclass(frozen=True)
class Example:
    """One shipped example."""

    name: str
    path: Path
    title: str
    """The first heading of its README.md (else its name)."""
    helpers: tuple[str, ...]
    """Other folders of `examples/` it imports (copied with it)."""
    extras: tuple[str, ...]
    """tracesim extras its imports need (`pip install 'tracesim[...]'`)."""

    def missing_extras(self) -> list[str]:
        """The extras whose packages are not importable here."""
        return [
            extra
            for module, extra in EXTRA_OF_MODULE.items()
            if extra in self.extras and importlib.util.find_spec(module) is None
        ]


def examples_root() -> Path | None:
    """The folder holding the examples: the checkout's `examples/` beside the `tracesim`
    package (a checkout has its pyproject.toml there), else the wheel's data folder
    `tracesim/bundled_examples`; None when neither exists."""
    package = Path(__file__).resolve().parent
    checkout = package.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "examples").is_dir():
        return checkout / "examples"
    bundled = package / "bundled_examples"
    return bundled if bundled.is_dir() else None


def _imports(folder: Path) -> tuple[set[str], set[str]]:
    """(`examples.<x>` folders, other top-level modules) the folder's Python files import."""
    helpers: set[str] = set()
    modules: set[str] = set()
    for source in folder.rglob("*.py"):
        if _SKIP & set(source.relative_to(folder).parts):
            continue
        try:
            tree = ast.parse(source.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for name in names:
                parts = name.split(".")
                if parts[0] == "examples" and len(parts) > 1:
                    helpers.add(parts[1])
                else:
                    modules.add(parts[0])
    return helpers, modules


def _title(folder: Path) -> str:
    readme = folder / "README.md"
    if readme.is_file():
        for line in readme.read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip()
    return folder.name


def list_examples(root: Path | None = None) -> list[Example]:
    """Every runnable example (a folder with a config.yaml), by name."""
    root = root or examples_root()
    if root is None:
        return []
    found = []
    for folder in sorted(p for p in root.iterdir() if (p / "config.yaml").is_file()):
        helpers, modules = _imports(folder)
        pending, seen = list(helpers - {folder.name}), set()
        while pending:  # helpers of helpers
            name = pending.pop()
            if name in seen or not (root / name).is_dir():
                continue
            seen.add(name)
            more, used = _imports(root / name)
            modules |= used
            pending.extend(more - seen)
        extras = sorted({EXTRA_OF_MODULE[m] for m in modules if m in EXTRA_OF_MODULE})
        found.append(
            Example(folder.name, folder, _title(folder), tuple(sorted(seen)), tuple(extras))
        )
    return found


def _same_tree(source: Path, target: Path) -> bool:
    """True when `target` holds the same files as `source` (caches and outputs aside)."""

    def files(root: Path) -> dict[str, bytes]:
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and not (_SKIP & set(p.relative_to(root).parts)) and p.suffix != ".pyc"
        }

    return target.is_dir() and files(source) == files(target)


def copy_example(example: Example, destination: Path, *, force: bool = False) -> Path:
    """Copy `example` and its helpers into `destination/examples/`, the layout its config
    and imports expect (`tracesim run examples/<name>/config.yaml` from `destination`);
    returns the copied config. A helper already there unchanged (another example brought
    it) is kept. FileExistsError when a target folder exists (and differs) and not `force`."""
    target_root = destination / "examples"
    source_root = example.path.parent
    names = [example.name] + [
        h for h in example.helpers if not _same_tree(source_root / h, target_root / h)
    ]
    existing = [n for n in names if (target_root / n).exists()]
    if existing and not force:
        raise FileExistsError(
            ", ".join(str(target_root / n) for n in existing)
            + " already exist(s); pick another folder or pass --force"
        )
    for name in names:
        target = target_root / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source_root / name, target, ignore=shutil.ignore_patterns(*_SKIP, "*.pyc"))
    return target_root / example.name / "config.yaml"
