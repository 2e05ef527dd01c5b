"""YAML alias bombs in every file a command reads (SPEC §9 "bad config fails before
anything runs"): a 734-byte file of nested aliases exits 2 at once naming the file,
instead of expanding to gigabytes when overrides copy or validation walks it."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from tracesim.collector.redaction import InvalidRedactionRule, load_redaction_file
from tracesim.schemas.yaml_limits import expanded_size, load_yaml

from tracesim.config_loader import ConfigError, load_run_config

TRACESIM = Path(sys.executable).parent / "tracesim"


def bomb(levels: int = 9, width: int = 9) -> str:
    """The classic: each level lists the previous one `width` times (width**levels values)."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def _cap_memory() -> None:  # runs in the child: a regression fails, not the machine
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("overrides", [[], ["--max_turns", "3"]])
def test_tracesim_run_refuses_an_alias_bomb_at_once(tmp_path: Path, overrides: list[str]) -> None:
    config = tmp_path / "bomb.yaml"
    config.write_text(bomb() + "max_turns: 2\n")
    assert len(config.read_bytes()) < 800
    proc = subprocess.run(
        [str(TRACESIM), "run", str(config), "--no-progress", *overrides],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a speed check
        preexec_fn=_cap_memory,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert str(config) in proc.stderr and "aliases" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_each_loader_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb())
    with pytest.raises(ConfigError, match=str(path)):
        load_run_config(path)
    with pytest.raises(InvalidRedactionRule, match=str(path)):
        load_redaction_file(path)
    with pytest.raises(ConfigError, match="override --x"):
        load_run_config(_small_config(tmp_path), {"x": "[" + bomb().replace("\n", ", ") + "]"})


def _small_config(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text("max_turns: 2\n")
    return path


def test_aliases_that_stay_small_still_load_and_cycles_are_refused() -> None:
    assert load_yaml("base: &b {model: m, t: 1}\nuse: *b\nlist: [*b, *b]") == {
        "base": {"model": "m", "t": 1},
        "use": {"model": "m", "t": 1},
        "list": [{"model": "m", "t": 1}] * 2,
    }
    assert load_yaml(bomb(levels=3, width=3)) is not None
    import yaml

    assert expanded_size(yaml.compose(bomb(levels=9))) > 9**8
    with pytest.raises(ValueError, match="refers to a value that contains it"):
        load_yaml("a: &a [1, *a]")
    with pytest.raises(ValueError, match="nests too deeply"):
        load_yaml("[" * 50_000)
