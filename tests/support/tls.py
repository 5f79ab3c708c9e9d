"""Certificates for servers in the tests: a CA made for the run (trustme), and one
certificate for ``127.0.0.1`` and ``localhost``, so the course and the LMS can each be served
over HTTPS on its own host name (two sites, as a real Moodle and the course are)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the CA to trust, and the servers' certificate and key."""

    ca: Path
    cert: Path
    key: Path

    def client_context(self) -> ssl.SSLContext:
        """What an httpx client passes as ``verify`` to trust the CA."""
        return ssl.create_default_context(cafile=str(self.ca))

    def env(self) -> dict[str, str]:
        """Environment that makes ``requests`` and ``httpx`` in a server trust the CA."""
        return {"REQUESTS_CA_BUNDLE": str(self.ca), "SSL_CERT_FILE": str(self.ca)}


def make_certificates(folder: Path) -> TlsFiles:
    """A new CA and a certificate signed by it for ``127.0.0.1`` and ``localhost``."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    files = TlsFiles(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    ca.cert_pem.write_to_path(str(files.ca))
    leaf.cert_chain_pems[0].write_to_path(str(files.cert))
    for extra in leaf.cert_chain_pems[1:]:
        with open(files.cert, "ab") as chain:
            chain.write(extra.bytes())
    leaf.private_key_pem.write_to_path(str(files.key))
    return files
