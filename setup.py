"""Install every folder of the repository under the one top-level name ``tracesim``.

The repository keeps the product's layout (``collector/``, ``evaluator/``, ...), but an
installed tracesim must not claim generic top-level names such as ``schemas`` that its
users' own agent projects use; setuptools' package-directory mapping does both.
"""

from setuptools import find_packages, setup

FOLDERS = ("collector", "evaluator", "simulator", "schemas", "providers")

packages = find_packages(include=["tracesim", "tracesim.*"])
packages.append("tracesim.templates")  # data only (`tracesim init`'s files), no __init__.py
package_dir = {"tracesim": "tracesim"}
for folder in FOLDERS:
    package_dir[f"tracesim.{folder}"] = folder
    packages += [f"tracesim.{name}" for name in find_packages(include=[folder, f"{folder}.*"])]

setup(packages=packages, package_dir=package_dir)
