"""EKS bearer tokens for the emulated Kubernetes API servers: parse, check and mint them.

An EKS token is ``k8s-aws-v1.`` followed by the base64url encoding (padding stripped) of a presigned
STS ``GetCallerIdentity`` URL whose signature covers the ``x-k8s-aws-id`` header (the cluster name).
The real EKS authenticator replays that URL against STS to learn the caller's ARN. ``parse_token``
checks the shape (an https STS URL, ``Action=GetCallerIdentity``, SigV4 query parameters and
``x-k8s-aws-id`` among the signed headers); ``signature_matches`` recomputes the SigV4 signature for a
given secret key and cluster name, which is what STS does when the authenticator replays the URL, so
a token minted for another cluster or with an unknown key fails as it would on EKS. The cluster name
is signed, not sent, so it cannot be read back from the token; the access key id can.

``KubeRequest`` and ``Access`` are what an authorizer (``PatchedKubernetesEmulator.authorizer``) sees
and answers: 401 for a token that does not authenticate, 403 for an identity that may not do the
request, as the Kubernetes API server answers
(https://kubernetes.io/docs/reference/access-authn-authz/authentication/,
https://kubernetes.io/docs/reference/access-authn-authz/authorization/).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import hmac
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
    session_token: str | None = None


@dataclasses.dataclass(frozen=True)
class KubeRequest:
    """A request in the terms Kubernetes authorization uses (verb, resource, namespace)."""

    verb: str
    path: str
    resource: str | None = None  # None for non-resource URLs (/api, /version, /healthz ...)
    group: str = ""
    namespace: str | None = None
    name: str | None = None

    def describe(self, user: str) -> str:
        """The API server's Forbidden message for this request."""
        if self.resource is None:
            return f'forbidden: User "{user}" cannot {self.verb} path "{self.path}"'
        scope = f' in the namespace "{self.namespace}"' if self.namespace else " at the cluster scope"
        what = f'{self.resource} "{self.name}"' if self.name else self.resource
        return (
            f'{what} is forbidden: User "{user}" cannot {self.verb} resource "{self.resource}" '
            f'in API group "{self.group}"{scope}'
        )


@dataclasses.dataclass(frozen=True)
class Access:
    """An authorizer's answer: 200 (allowed), 401 (not authenticated) or 403 (not authorized)."""

    code: int
    user: str = ""
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return self.code == 200


# Decides one request: called with the cluster name, the well-formed token and the request.
Authorizer = Callable[[str, "EksToken", KubeRequest], Access]


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
        session_token=query.get("x-amz-security-token"),
    )


def signature_matches(token: EksToken, cluster_name: str, secret_access_key: str) -> bool:
    """Whether the token's SigV4 signature is the one ``secret_access_key`` gives for ``cluster_name``.

    STS recomputes the signature over the canonical request, whose signed headers include
    ``x-k8s-aws-id``; a token minted for another cluster or another key does not verify
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
    """
    from botocore.auth import SigV4QueryAuth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    parts = urllib.parse.urlsplit(token.url)
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    signature = next((v for k, v in pairs if k == "X-Amz-Signature"), "")
    unsigned = [(k, v) for k, v in pairs if k != "X-Amz-Signature"]
    request = AWSRequest(
        method="GET",
        url=urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(unsigned))),
        headers={"x-k8s-aws-id": cluster_name},
    )
    request.context["timestamp"] = token.amz_date
    auth = SigV4QueryAuth(
        Credentials(token.access_key_id, secret_access_key, token.session_token),
        "sts",
        token.region,
        expires=token.expires or 60,
    )
    expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
    return bool(signature) and hmac.compare_digest(expected, signature)


_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


def kube_request(method: str, path: str, query: dict[str, str] | None = None) -> KubeRequest:
    """Classify a request as Kubernetes' authorizer does (request attributes: verb, resource, namespace).

    https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb
    """
    segments = [s for s in path.split("/") if s]
    if segments[:1] == ["api"] and len(segments) >= 2:
        group, rest = "", segments[2:]
    elif segments[:1] == ["apis"] and len(segments) >= 3:
        group, rest = segments[1], segments[3:]
    else:
        rest = []
    if not rest:
        return KubeRequest(verb=method.lower(), path=path)
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    resource, name = rest[0], rest[1] if len(rest) > 1 else None
    if resource == "namespaces" and name:
        namespace = name
    if len(rest) > 2:
        resource = f"{resource}/{rest[2]}"
    watching = (query or {}).get("watch") in ("1", "true")
    if method == "GET":
        verb = "watch" if watching else ("get" if name else "list")
    elif method == "DELETE":
        verb = "delete" if name else "deletecollection"
    else:
        verb = _VERBS.get(method, method.lower())
    return KubeRequest(verb=verb, path=path, resource=resource, group=group, namespace=namespace, name=name)


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
