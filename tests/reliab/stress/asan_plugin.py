"""pytest plugin (and import hook): put the ASan/UBSan build of the native OTLP reader named
by $TRACESIM_ASAN_READER in place of the installed one, before anything decodes."""

from __future__ import annotations

import importlib.util
import os
import sys

_NAME = "tracesim.collector.decode._otlp_wire"


def _load() -> None:
    path = os.environ.get("TRACESIM_ASAN_READER")
    if not path:
        return
    spec = importlib.util.spec_from_file_location(_NAME, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[_NAME] = module
    import tracesim.collector.decode as package
    from tracesim.collector.decode import spans_tree

    package._otlp_wire = module  # type: ignore[attr-defined]
    spans_tree._native = module
    print(f"ASan/UBSan native reader in use: {path}", file=sys.stderr)


_load()
