"""A size-limited tmpfs for full-disk tests (root only; the test is skipped otherwise)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["mounted_tmpfs", "resize_tmpfs"]


@contextmanager
def mounted_tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of `size` (mount's syntax: `2m`, `64m`) at `mount`, unmounted after;
    skips the test when not root or when mounting fails."""
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def resize_tmpfs(mount: Path, kib: int) -> None:
    """Change a mounted tmpfs's size to `kib` KiB."""
    subprocess.run(["mount", "-o", f"remount,size={kib}k", str(mount)], check=True)
