"""Emulated Kubernetes API servers for the sandbox: one kmock-based, EKS-authenticated server per cluster.

``KubeFleet`` starts one ``PatchedKubernetesEmulator`` per EKS cluster on its own thread and port;
``mint_token`` builds the EKS bearer token the servers require, so the unchanged ``kubernetes`` client
works against them as against EKS.
"""

from typing import Any

from sandbox.kube.emulator import DEFAULT_NAMESPACES, PatchedKubernetesEmulator, status_body
from sandbox.kube.fleet import KubeFleet
from sandbox.kube.thread import KubeEmulatorThread
from sandbox.kube.tokens import (
    Access,
    Authorizer,
    EksToken,
    InvalidToken,
    KubeRequest,
    PrincipalPolicy,
    mint_token,
    parse_authorization,
    parse_token,
)


def configuration(url: str, token: str) -> Any:
    """A kubernetes client Configuration for an emulated API server: its URL, a bearer token, and the
    sandbox's CA to verify its HTTPS certificate (what EKS's certificateAuthority gives a client)."""
    from kubernetes import client

    from sandbox.tls import ca_file

    config = client.Configuration(host=url, api_key={"authorization": "Bearer " + token})
    config.ssl_ca_cert = ca_file()
    return config


__all__ = [
    "DEFAULT_NAMESPACES",
    "Access",
    "Authorizer",
    "EksToken",
    "InvalidToken",
    "KubeEmulatorThread",
    "KubeFleet",
    "KubeRequest",
    "PatchedKubernetesEmulator",
    "PrincipalPolicy",
    "configuration",
    "mint_token",
    "parse_authorization",
    "parse_token",
    "status_body",
]
