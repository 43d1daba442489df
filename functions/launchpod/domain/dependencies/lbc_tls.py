"""The AWS Load Balancer Controller's webhook serving certificate: made as its chart makes it, kept while valid.

Facts from kubernetes-sigs/aws-load-balancer-controller (commit 225f445, chart 3.5.0), helm/aws-load-balancer-
controller/templates/_helpers.tpl ``webhookCerts``: ``genCA "aws-load-balancer-controller-ca" 3650`` and
``genSignedCert "aws-load-balancer-controller" nil <altNames> 3650 $ca``, the names being the webhook Service's
``<svc>.<ns>``, ``<svc>.<ns>.svc`` and ``<svc>.<ns>.svc.cluster.local``; templates/webhook.yaml stores them in
the Secret ``aws-load-balancer-tls`` (type kubernetes.io/tls, keys ca.crt, tls.crt, tls.key), and every
webhook's ``caBundle`` is the CA. Sprig's genCA/genSignedCert make 2048-bit RSA keys, the CA with
CertSign, both for ServerAuth and ClientAuth (Masterminds/sprig crypto.go).

The chart makes a new pair on every install and upgrade unless ``keepTLSSecret`` is set; Launchpod keeps the
stored pair while it is whole, names the Service, is signed by its CA and has more than 30 days left (our
margin), so a second reconcile changes nothing.
"""

from __future__ import annotations

import base64
import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# cryptography costs the API Lambda ~80 ms at import, and only the dependencies' reconcile makes or checks a
# certificate: each function that needs it imports it.
if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import rsa

SERVICE = "aws-load-balancer-webhook-service"
SECRET = "aws-load-balancer-tls"
NAMESPACE = "kube-system"
DAYS = 3650
RENEW_BEFORE = datetime.timedelta(days=30)
NAMES = (f"{SERVICE}.{NAMESPACE}", f"{SERVICE}.{NAMESPACE}.svc", f"{SERVICE}.{NAMESPACE}.svc.cluster.local")

Obj = dict[str, Any]


@dataclass(frozen=True)
class Tls:
    """PEM text of the CA certificate, the serving certificate and its private key."""

    ca_crt: str
    tls_crt: str
    tls_key: str


def _name(common: str) -> x509.Name:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(
    subject: str, key: rsa.RSAPrivateKey, issuer: str, signer: rsa.RSAPrivateKey, now: datetime.datetime, ca: bool
) -> x509.Certificate:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID

    usage = x509.KeyUsage(
        digital_signature=True,
        key_encipherment=True,
        key_cert_sign=ca,
        content_commitment=False,
        data_encipherment=False,
        key_agreement=False,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
    )
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in NAMES]), critical=False)
    return builder.sign(signer, hashes.SHA256())


def _pem(cert: x509.Certificate) -> str:
    from cryptography.hazmat.primitives import serialization

    return cert.public_bytes(serialization.Encoding.PEM).decode()


def generate(now: datetime.datetime) -> Tls:
    """A new CA and a serving certificate for the webhook Service signed by it, both for 3650 days."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca = _certificate("aws-load-balancer-controller-ca", ca_key, "aws-load-balancer-controller-ca", ca_key, now, True)
    cert = _certificate("aws-load-balancer-controller", key, "aws-load-balancer-controller-ca", ca_key, now, False)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    return Tls(_pem(ca), _pem(cert), private.decode())


def _decoded(data: dict[str, Any], key: str) -> str:
    return base64.b64decode(str(data.get(key) or ""), validate=True).decode()


def kept(secret: Obj | None, now: datetime.datetime) -> Tls | None:
    """The stored pair when it still serves the webhook (see the module docstring), else None."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization

    data = (secret or {}).get("data") or {}
    try:
        tls = Tls(_decoded(data, "ca.crt"), _decoded(data, "tls.crt"), _decoded(data, "tls.key"))
        ca = x509.load_pem_x509_certificate(tls.ca_crt.encode())
        cert = x509.load_pem_x509_certificate(tls.tls_crt.encode())
        key = serialization.load_pem_private_key(tls.tls_key.encode(), password=None)
        cert.verify_directly_issued_by(ca)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, TypeError, x509.ExtensionNotFound, InvalidSignature, UnicodeDecodeError):
        return None
    if key.public_key() != cert.public_key() or not set(NAMES) <= set(names.get_values_for_type(x509.DNSName)):
        return None
    for one in (ca, cert):
        if not one.not_valid_before_utc <= now < one.not_valid_after_utc - RENEW_BEFORE:
            return None
    return tls


def ca_bundle(tls: Tls) -> str:
    """The webhooks' caBundle: the CA's PEM, base64-encoded."""
    return base64.b64encode(tls.ca_crt.encode()).decode()


def secret(tls: Tls, labels: dict[str, str]) -> Obj:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET, "namespace": NAMESPACE, "labels": labels},
        "type": "kubernetes.io/tls",
        "data": {"ca.crt": b64(tls.ca_crt), "tls.crt": b64(tls.tls_crt), "tls.key": b64(tls.tls_key)},
    }


def secret_ref() -> Obj:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET, "namespace": NAMESPACE}}
