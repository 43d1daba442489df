"""The Tokens contract: the in-memory fake (tests/fakes/tokens.py) and adapters.tokens reading a local issuer's
published keys (its JWKS at {issuer}/.well-known/jwks.json, served over HTTP on a local port) answer alike: an ID
token's claims, another IdP's groups claim given as cognito:groups, and a token for another audience, an expired
one and an access token refused."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from launchpod.adapters import tokens
from launchpod.domain.errors import Unauthorized

from tests.fakes.tokens import Tokens

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
JWK = {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key())), "kid": "k1", "use": "sig", "alg": "RS256"}


class _Issuer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/.well-known/jwks.json":
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps({"keys": [JWK]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(params=["fake", "issuer"])
def side(request: pytest.FixtureRequest) -> Iterator[tuple[Any, str]]:
    """The port and the issuer it trusts."""
    if request.param == "fake":
        yield Tokens(KEY.public_key()), "https://issuer.example"
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Issuer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tokens, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _sign(issuer: str, **claims: Any) -> str:
    base = {"iss": issuer, "sub": "alice", "aud": "client-1", "exp": int(time.time()) + 300}
    return jwt.encode({**base, **claims}, KEY, algorithm="RS256", headers={"kid": "k1"})


def test_an_id_tokens_claims_are_answered(side: tuple[Any, str]) -> None:
    port, issuer = side
    claims = port.verify(_sign(issuer, token_use="id"), issuer=issuer, audience="client-1")
    assert (claims["sub"], claims["iss"]) == ("alice", issuer)


def test_another_idps_groups_claim_is_given_as_cognito_groups(side: tuple[Any, str]) -> None:
    port, issuer = side
    claims = port.verify(_sign(issuer, groups=["admin"]), issuer=issuer, audience="client-1", groups_claim="groups")
    assert claims["cognito:groups"] == ["admin"]


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ({"aud": "someone-else"}, "The token is not valid: Audience doesn't match"),
        ({"exp": int(time.time()) - 60}, "The token is not valid: Signature has expired"),
        ({"token_use": "access"}, "Send the ID token, not the access token"),
    ],
)
def test_a_token_for_another_audience_expired_or_an_access_token_is_refused(
    side: tuple[Any, str], claims: dict[str, Any], message: str
) -> None:
    port, issuer = side
    with pytest.raises(Unauthorized, match=message):
        port.verify(_sign(issuer, **claims), issuer=issuer, audience="client-1")
