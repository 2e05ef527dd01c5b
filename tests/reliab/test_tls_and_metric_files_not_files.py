"""TLS and custom-metric files that exist and are not files (a device, a FIFO, a folder)
are named as such (attack round 6). Before: both said "does not exist", sending the user
to look for a file that is there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tracesim.collector import Collector
from tracesim.evaluator.checks import CustomMetricError, load_custom_metrics


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.pem"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("name", "said"), [("/dev/zero", "a character device"), ("FIFO", "a FIFO"), ("DIR", "folder")]
)
def test_a_custom_metrics_file_that_is_not_a_file(
    tmp_path: Path, fifo: Path, name: str, said: str
) -> None:
    path = {"FIFO": str(fifo), "DIR": str(tmp_path)}.get(name, name)
    said = "a directory" if said == "folder" else said
    with pytest.raises(CustomMetricError) as caught:
        load_custom_metrics([path])
    assert f"is {said}" in str(caught.value)
    assert "does not exist" not in str(caught.value)


@pytest.mark.parametrize("which", ["cert", "key"])
def test_a_tls_file_that_is_a_fifo_or_device(tmp_path: Path, fifo: Path, which: str) -> None:
    other = tmp_path / "other.pem"
    other.write_text("x")
    for bad, said in ((fifo, "a FIFO"), (Path("/dev/zero"), "a character device")):
        files = {"tls_cert": other, "tls_key": other, f"tls_{which}": bad}
        with pytest.raises(ValueError) as caught:
            Collector(tmp_path / "t.duckdb", grpc_port=None, http_port=0, **files)
        assert f"tls_{which} {bad} is {said}" in str(caught.value)
        assert "does not exist" not in str(caught.value)


def test_collect_with_a_fifo_for_a_certificate_exits_2_naming_it(
    tmp_path: Path, fifo: Path
) -> None:
    key = tmp_path / "key.pem"
    key.write_text("x")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tracesim")), "collect", "--db", "t.duckdb",
         "--tls-cert", str(fifo), "--tls-key", str(key), "--grpc-port", "0", "--http-port", "0"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "is a FIFO (named pipe), not a PEM file" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("Error: TLS: tls_cert")
