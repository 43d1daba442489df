"""``k8s_client_for(cluster)``: a kubernetes ApiClient for an EKS cluster.

The token is the EKS recipe: a presigned STS GetCallerIdentity URL carrying the cluster name in
the signed ``x-k8s-aws-id`` header, base64url-encoded behind ``k8s-aws-v1.``. It lives 15
minutes; clients are cached for 10. When a kube role is configured the token is minted as that
role, the one principal every cluster gives an access entry to. The cluster is described, and its token
presigned, in the current Region (``launchpod.adapters.aws.clients.in_region``: the cluster's).
"""

from __future__ import annotations

import base64
import tempfile
import threading
import time
from typing import Any

import boto3
from botocore.signers import RequestSigner
from kubernetes import client as k8s

from launchpod.adapters.aws.clients import client, region
from launchpod.adapters.aws.eks import Eks
from launchpod.adapters.aws.errors import aws_call
from launchpod.domain.errors import NotFound, RetryableError
from launchpod.runtime.settings import settings

_CACHE: dict[str, tuple[float, k8s.ApiClient]] = {}
_LOCK = threading.Lock()
_CLIENT_LIFE = 600.0


def _session() -> boto3.session.Session:
    s = settings()
    if not s.kube_role_arn:
        return boto3.session.Session(region_name=region())
    with aws_call("sts:AssumeRole"):
        creds = client("sts").assume_role(RoleArn=s.kube_role_arn, RoleSessionName="launchpod-kube")["Credentials"]
    return boto3.session.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name=region(),
    )


def eks_token(cluster: str) -> str:
    session, where = _session(), region()
    sts = session.client("sts", region_name=where, endpoint_url=settings().aws_endpoint_url)
    service_id = sts.meta.service_model.service_id
    signer = RequestSigner(service_id, where, "sts", "v4", session.get_credentials(), session.events)
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": f"https://sts.{where}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
            "body": {},
            "headers": {"x-k8s-aws-id": cluster},
            "context": {},
        },
        region_name=where,
        expires_in=60,
        operation_name="",
    )
    return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def _build(cluster: str) -> k8s.ApiClient:
    described = Eks().cluster(cluster)
    if described is None:
        raise NotFound(f"EKS cluster {cluster} does not exist.")
    if described.status != "ACTIVE" or not described.endpoint:
        raise RetryableError(f"EKS cluster {cluster} is {described.status}; its API is not ready yet.")
    config = k8s.Configuration()
    config.host = described.endpoint
    ca = described.certificate_authority
    if ca:
        with tempfile.NamedTemporaryFile("wb", delete=False, suffix=".crt") as handle:
            handle.write(base64.b64decode(ca))
        config.ssl_ca_cert = handle.name
    config.api_key = {"authorization": "Bearer " + eks_token(cluster)}
    config.retries = 3
    return k8s.ApiClient(config)


def k8s_client_for(cluster: str) -> Any:
    with _LOCK:
        cached = _CACHE.get(cluster)
        if cached and time.monotonic() - cached[0] < _CLIENT_LIFE:
            return cached[1]
    api = _build(cluster)
    with _LOCK:
        _CACHE[cluster] = (time.monotonic(), api)
    return api


def forget(cluster: str) -> None:
    with _LOCK:
        _CACHE.pop(cluster, None)
