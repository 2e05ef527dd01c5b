"""Load the user's agent class from a python file or an importable module.

`module_path` may be a file path (relative to the config file), a dotted
module (`pkg.mod`) or either followed by `:ClassName`. A file is loaded once
per path (cached), so module-level set-up such as `instrument()` runs once
however many conversations the run creates.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["AgentLoadError", "load_agent_class"]

_FILE_MODULES: dict[Path, ModuleType] = {}


class AgentLoadError(ValueError):
    """The agent class could not be found or imported; the message says what to fix."""


def load_agent_class(module_path: str, class_name: str | None = None, *, base_dir: Path) -> type:
    """Return the agent class named by `module_path` (and `class_name`)."""
    target, _, suffix_class = module_path.partition(":")
    if suffix_class:
        if class_name and class_name != suffix_class:
            raise AgentLoadError(
                f"agent_config: module_path names class {suffix_class!r} but class_name is {class_name!r}"
            )
        class_name = suffix_class
    module = _import(target, base_dir=base_dir)
    if class_name:
        cls = getattr(module, class_name, None)
        if not inspect.isclass(cls):
            found = ", ".join(_candidate_names(module)) or "none"
            raise AgentLoadError(
                f"agent_config.class_name: {getattr(module, '__file__', None) or module.__name__} "
                f"has no class {class_name!r} "
                f"(agent classes found: {found})"
            )
        if not _is_agent_class(cls):
            raise AgentLoadError(
                f"agent_config.class_name: {class_name} is not an agent class: it needs an "
                "async execute(user_query, **kwargs) (a BaseAgent subclass, tracesim's or arksim's)"
            )
        return cls
    candidates = _candidates(module)
    if len(candidates) != 1:
        found = ", ".join(c.__name__ for c in candidates) or "none"
        raise AgentLoadError(
            f"agent_config: {target} must define exactly one agent class (a class with async "
            f"execute()) when class_name is not given; found: {found}. Set agent_config.class_name."
        )
    return candidates[0]


def _import(target: str, *, base_dir: Path) -> ModuleType:
    looks_like_file = target.endswith(".py") or "/" in target or "\\" in target
    if looks_like_file:
        path = Path(target)
        if not path.is_absolute():
            path = base_dir / path
        path = path.resolve()
        if not path.is_file():
            raise AgentLoadError(f"agent_config.module_path: file not found: {path}")
        return _import_file(path)
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise AgentLoadError(
            f"agent_config.module_path: cannot import module {target!r}: {exc}. "
            "Give a .py file path (relative to the config file) or an importable module."
        ) from exc


def _import_file(path: Path) -> ModuleType:
    if path in _FILE_MODULES:
        return _FILE_MODULES[path]
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"tracesim_agent_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AgentLoadError(f"agent_config.module_path: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # The agent's own helper modules (e.g. a local model file) sit next to it.
    parent = str(path.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise AgentLoadError(
            f"agent_config.module_path: importing {path} failed: {type(exc).__name__}: {exc}"
        ) from exc
    _FILE_MODULES[path] = module
    return module


def _is_agent_class(obj: object) -> bool:
    return (
        inspect.isclass(obj)
        and not inspect.isabstract(obj)
        and inspect.iscoroutinefunction(getattr(obj, "execute", None))
    )


def _candidates(module: ModuleType) -> list[type]:
    return [
        obj
        for obj in vars(module).values()
        if _is_agent_class(obj) and getattr(obj, "__module__", None) == module.__name__
    ]


def _candidate_names(module: ModuleType) -> list[str]:
    return [c.__name__ for c in _candidates(module)]
