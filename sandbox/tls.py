"""The sandbox's certificate authority: EKS clusters' API servers are HTTPS, as EKS's are.

EKS answers DescribeCluster with ``certificateAuthority.data``, the base64 PEM of the CA that signed the
API server's certificate, and clients (the kubernetes client, kubectl) verify the endpoint against it
(https://docs.aws.amazon.com/eks/latest/APIReference/API_Certificate.html). The sandbox makes one CA per
process and one server certificate for 127.0.0.1, where every emulated API server listens; EKS makes one
CA per cluster (the sandbox's clusters share this one).
"""

from __future__ import annotations

import base64
import functools
import ipaddress
import ssl
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


@dataclass(frozen=True)
class Authority:
    ca_pem: bytes
    cert_pem: bytes
    key_pem: bytes


_MADE = threading.RLock()  # ca_file holds it while it asks for the authority


def authority() -> Authority:
    """The process's one CA and server certificate. Made under a lock: clusters created side by side asked for
    it at once, and ``functools.cache`` lets concurrent first calls each make their own, so an API server could
    serve a certificate signed by a CA other than the one DescribeCluster gave its clients (a provision failed
    with CERTIFICATE_VERIFY_FAILED, "certificate signature failure")."""
    with _MADE:
        return _authority()


@functools.cache
def _authority() -> Authority:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=365))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.DNSName("kubernetes"),
                    x509.DNSName("kubernetes.default.svc"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return Authority(
        ca_pem=ca.public_bytes(serialization.Encoding.PEM),
        cert_pem=cert.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )


def certificate_authority_data() -> str:
    """``certificateAuthority.data`` as EKS returns it: base64 of the CA's PEM."""
    return base64.b64encode(authority().ca_pem).decode()


def ca_file() -> str:
    """A file holding the CA's PEM (for clients that take a path, such as the kubernetes client)."""
    with _MADE:
        return _ca_file()


@functools.cache
def _ca_file() -> str:
    with tempfile.NamedTemporaryFile("wb", delete=False, prefix="sandbox-ca-", suffix=".crt") as handle:
        handle.write(authority().ca_pem)
    return handle.name


def server_context() -> ssl.SSLContext:
    """The TLS context every emulated API server serves with."""
    found = authority()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as folder:
        cert, key = f"{folder}/server.crt", f"{folder}/server.key"
        with open(cert, "wb") as out:
            out.write(found.cert_pem)
        with open(key, "wb") as out:
            out.write(found.key_pem)
        context.load_cert_chain(cert, key)
    return context
