"""Optional TLS for both receivers: one certificate chain and key (PEM files).

Checked when the `Collector` is built (so a wrong path or a key that does not
match the certificate fails before anything listens), then handed to gRPC as
server credentials and to uvicorn as its ssl files.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

from tracesim.schemas.duckdb_file import not_a_file

__all__ = ["TlsConfig", "tls_config"]


@dataclass(frozen=True)
class TlsConfig:
    """PEM certificate chain and private key of the receivers."""

    cert_path: Path
    key_path: Path

    def pem(self) -> tuple[bytes, bytes]:
        """(private key, certificate chain) bytes, the order gRPC wants them in."""
        return self.key_path.read_bytes(), self.cert_path.read_bytes()


def tls_config(cert: str | Path | None, key: str | Path | None) -> TlsConfig | None:
    """Validate a certificate/key pair; None when TLS is off. Raises ValueError naming the
    file and the problem."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        given, missing = ("tls_cert", "tls_key") if key is None else ("tls_key", "tls_cert")
        raise ValueError(f"TLS: {given} was given without {missing}; give both PEM files")
    config = TlsConfig(Path(cert), Path(key))
    for name, path in (("tls_cert", config.cert_path), ("tls_key", config.key_path)):
        kind = not_a_file(path)  # a FIFO would hang the start, a device read forever
        if kind is not None:
            raise ValueError(f"TLS: {name} {path} is {kind}, not a PEM file; give the file")
        if not path.is_file():
            raise ValueError(f"TLS: {name} {path} does not exist or is not a file")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(config.cert_path, config.key_path)
    except ssl.SSLError as error:
        raise ValueError(
            f"TLS: cannot use certificate {config.cert_path} with key {config.key_path}: "
            f"{error.reason or error}; both must be PEM and the key must match the certificate"
        ) from None
    return config
