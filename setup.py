"""Install every folder of the repository under the one top-level name ``tracesim``.

The repository keeps the product's layout (``collector/``, ``evaluator/``, ...), but an
installed tracesim must not claim generic top-level names such as ``schemas`` that its
users' own agent projects use; setuptools' package-directory mapping does both.
It also builds the collector's optional native OTLP reader (`collector/decode/_otlp_wire.c`).
"""

from pathlib import Path

from setuptools import Extension, find_packages, setup

FOLDERS = ("collector", "evaluator", "simulator", "schemas", "providers")

packages = find_packages(include=["tracesim", "tracesim.*"])
packages.append("tracesim.templates")  # data only (`tracesim init`'s files), no __init__.py
packages.append("tracesim.bundled_examples")  # data only: `examples/` for `tracesim examples`
package_dir = {"tracesim": "tracesim", "tracesim.bundled_examples": "examples"}


def python_folders(folder: str) -> list[str]:
    """Every folder under `folder` holding Python modules, as a dotted package name, with or
    without an `__init__.py` (find_packages skips namespace folders, and a wheel without
    them fails at its first import)."""
    found = {
        ".".join(path.parent.parts)
        for path in Path(folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    return sorted(found)


for folder in FOLDERS:
    package_dir[f"tracesim.{folder}"] = folder
    packages += [f"tracesim.{name}" for name in python_folders(folder)]

# The native OTLP reader is optional: without a C compiler the build goes on without it and
# the collector decodes through protobuf (upb) alone, with the same rows.
OTLP_WIRE = Extension(
    "tracesim.collector.decode._otlp_wire",
    [
        "collector/decode/_otlp_wire.c",
        "collector/decode/_otlp_values.c",
        "collector/decode/_otlp_check.c",
    ],
    depends=["collector/decode/_otlp_wire.h"],
    optional=True,
)

setup(packages=packages, package_dir=package_dir, ext_modules=[OTLP_WIRE])
