"""EKS bearer tokens for the emulated Kubernetes API servers: parse, check and mint them.

An EKS token is ``k8s-aws-v1.`` followed by the base64url encoding (padding stripped) of a presigned
STS ``GetCallerIdentity`` URL whose signature covers the ``x-k8s-aws-id`` header (the cluster name).
The real EKS authenticator replays that URL against STS to learn the caller's ARN; the sandbox has no
STS to ask, so it checks the shape only: an https STS URL, ``Action=GetCallerIdentity``, SigV4 query
parameters and ``x-k8s-aws-id`` among the signed headers. The cluster name is signed, not sent, so it
cannot be read back from the token; the access key id can, and is kept for principal checks.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

TOKEN_PREFIX = "k8s-aws-v1."

# Regional (sts.us-east-1.amazonaws.com), global (sts.amazonaws.com) and China/FIPS partitions.
_STS_HOST = re.compile(r"^sts(?:-fips)?(?:\.[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$")


@dataclasses.dataclass(frozen=True)
class EksToken:
    """What the emulator learns from a well-formed EKS token."""

    url: str
    host: str
    access_key_id: str
    region: str
    signed_headers: tuple[str, ...]
    amz_date: str
    expires: int | None


# A principal check: called with every well-formed token; False answers 401 like an unknown IAM identity.
PrincipalPolicy = Callable[[EksToken], bool]


class InvalidToken(ValueError):
    """The Authorization header does not carry a well-formed EKS token."""


def parse_authorization(header: str | None) -> EksToken:
    """Parse ``Authorization: Bearer k8s-aws-v1.<base64url>`` or raise :class:`InvalidToken`."""
    if not header:
        raise InvalidToken("no Authorization header")
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise InvalidToken("not a bearer token")
    return parse_token(token.strip())


def parse_token(token: str) -> EksToken:
    """Decode an EKS token and check that it is a presigned STS GetCallerIdentity URL."""
    if not token.startswith(TOKEN_PREFIX):
        raise InvalidToken(f"token does not start with {TOKEN_PREFIX}")
    encoded = token[len(TOKEN_PREFIX) :]
    try:
        # aws-iam-authenticator strips the padding; add it back before decoding.
        url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise InvalidToken("token is not base64url") from exc
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme != "https" or not _STS_HOST.match(parsed.hostname or ""):
        raise InvalidToken("token is not an https STS URL")
    query = {k.lower(): v for k, v in urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)}
    if query.get("action") != "GetCallerIdentity":
        raise InvalidToken("token is not a GetCallerIdentity request")
    signed = tuple(h.strip().lower() for h in query.get("x-amz-signedheaders", "").split(";") if h.strip())
    if "x-k8s-aws-id" not in signed:
        raise InvalidToken("x-k8s-aws-id is not a signed header")
    if not query.get("x-amz-signature") or not query.get("x-amz-credential"):
        raise InvalidToken("token is not SigV4-presigned")
    # Credential scope: AKID/yyyymmdd/region/sts/aws4_request
    scope = query["x-amz-credential"].split("/")
    expires = query.get("x-amz-expires")
    return EksToken(
        url=url,
        host=parsed.hostname or "",
        access_key_id=scope[0],
        region=scope[2] if len(scope) > 2 else "",
        signed_headers=signed,
        amz_date=query.get("x-amz-date", ""),
        expires=int(expires) if expires and expires.isdigit() else None,
    )


@functools.cache
def _sts_signing_parts(region: str) -> tuple[Any, Any]:
    # Creating a botocore client loads the STS model (~0.3 s); tokens are minted often in tests.
    import botocore.session

    session = botocore.session.get_session()
    sts = session.create_client("sts", region_name=region, aws_access_key_id="x", aws_secret_access_key="x")
    return sts.meta.service_model.service_id, session.get_component("event_emitter")


def mint_token(
    cluster_name: str,
    *,
    region: str = "us-east-1",
    access_key_id: str = "testing",
    secret_access_key: str = "testing",
    session_token: str | None = None,
) -> str:
    """Build a real EKS token (the aws-iam-authenticator recipe) offline, e.g. for tests.

    botocore signs locally, so this needs no network and no AWS account.
    """
    from botocore.credentials import Credentials
    from botocore.signers import RequestSigner

    service_id, emitter = _sts_signing_parts(region)
    signer = RequestSigner(
        service_id, region, "sts", "v4", Credentials(access_key_id, secret_access_key, session_token), emitter
    )
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": f"https://sts.{region}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
            "body": {},
            "headers": {"x-k8s-aws-id": cluster_name},
            "context": {},
        },
        region_name=region,
        expires_in=60,
        operation_name="",
    )
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode("utf-8")).decode("ascii").rstrip("=")
