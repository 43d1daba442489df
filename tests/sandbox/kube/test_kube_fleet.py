"""KubeFleet gives every EKS cluster its own API server and cleans up after itself."""

from __future__ import annotations

import json
import threading
import time

import pytest
import urllib3
from kubernetes import client

from sandbox.kube import Access, KubeFleet, configuration, mint_token, parse_token
from sandbox.kube.tokens import InvalidToken, kube_request, signature_matches


def _core(url: str, cluster: str) -> client.CoreV1Api:
    return client.CoreV1Api(client.ApiClient(configuration(url, mint_token(cluster))))


def test_two_clusters_do_not_share_objects() -> None:
    fleet = KubeFleet()
    try:
        a, b = fleet.start_for("alpha"), fleet.start_for("beta")
        assert a != b and fleet.start_for("alpha") == a
        _core(a, "alpha").create_namespace({"metadata": {"name": "only-in-alpha"}})
        assert "only-in-alpha" not in [n.metadata.name for n in _core(b, "beta").list_namespace().items]
        assert fleet.call("alpha", lambda emu: emu.get_object("v1/namespaces", None, "only-in-alpha")) is not None
        assert fleet.emulator_for("beta").cluster_name == "beta"
        assert fleet.names() == ["alpha", "beta"]
    finally:
        fleet.stop_all()


def test_stop_ends_the_server_and_its_thread() -> None:
    before = set(threading.enumerate())
    fleet = KubeFleet()
    started = time.perf_counter()
    url = fleet.start_for("short-lived")
    assert time.perf_counter() - started < 1.0
    fleet.stop("short-lived")
    fleet.stop("never-started")  # no error
    with pytest.raises(KeyError):
        fleet.emulator_for("short-lived")
    assert fleet.url_for("short-lived") is None
    with pytest.raises(urllib3.exceptions.HTTPError):
        _core(url, "short-lived").list_namespace(_request_timeout=1)
    fleet.start_for("x")
    fleet.stop_all()
    assert set(threading.enumerate()) <= before


def test_tokens_are_checked_for_the_eks_shape() -> None:
    token = parse_token(mint_token("my-cluster", region="eu-west-1", access_key_id="AKIDEXAMPLE"))
    assert token.access_key_id == "AKIDEXAMPLE" and token.region == "eu-west-1"
    assert "x-k8s-aws-id" in token.signed_headers
    import base64

    def encode(url: str) -> str:
        return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")

    for bad in (
        "k8s-aws-v1.",
        encode("http://sts.amazonaws.com/?Action=GetCallerIdentity"),
        encode("https://evil.example.com/?Action=GetCallerIdentity"),
        encode("https://sts.amazonaws.com/?Action=AssumeRole&X-Amz-SignedHeaders=host;x-k8s-aws-id"),
    ):
        with pytest.raises(InvalidToken):
            parse_token(bad)


def test_principal_policy_can_refuse_a_well_formed_token() -> None:
    fleet = KubeFleet(principal_policy=lambda token: token.access_key_id == "ALLOWED")
    try:
        url = fleet.start_for("guarded")
        with pytest.raises(client.ApiException) as refused:
            _core(url, "guarded").list_namespace()
        assert refused.value.status == 401
        allowed = client.CoreV1Api(client.ApiClient(configuration(url, mint_token("guarded", access_key_id="ALLOWED"))))
        assert allowed.list_namespace().items
    finally:
        fleet.stop_all()


def test_a_token_verifies_only_for_its_cluster_and_secret_key() -> None:
    token = parse_token(mint_token("c1", access_key_id="AK", secret_access_key="SK", session_token="ST"))
    assert signature_matches(token, "c1", "SK")
    assert not signature_matches(token, "c2", "SK")
    assert not signature_matches(token, "c1", "other-secret")


def test_requests_are_classified_as_kubernetes_authorization_sees_them() -> None:
    pods = kube_request("GET", "/api/v1/namespaces/team/pods", {"watch": "true"})
    assert (pods.verb, pods.resource, pods.namespace, pods.group) == ("watch", "pods", "team", "")
    patch = kube_request("PATCH", "/apis/apps/v1/namespaces/kube-system/deployments/coredns/scale")
    assert (patch.verb, patch.resource, patch.name, patch.group) == ("patch", "deployments/scale", "coredns", "apps")
    nodes = kube_request("DELETE", "/api/v1/nodes")
    assert (nodes.verb, nodes.resource, nodes.namespace) == ("deletecollection", "nodes", None)
    assert kube_request("GET", "/version").resource is None


def test_an_authorizer_answers_401_or_403_with_the_api_servers_words() -> None:
    def authorizer(cluster: str, token, request) -> Access:
        if token.access_key_id != "KNOWN":
            return Access(401)
        return Access(200 if request.verb == "list" else 403, user="jane")

    fleet = KubeFleet(authorizer=authorizer)
    try:
        url = fleet.start_for("decided")
        with pytest.raises(client.ApiException) as unknown:
            _core(url, "decided").list_namespace()
        known = client.CoreV1Api(client.ApiClient(configuration(url, mint_token("decided", access_key_id="KNOWN"))))
        assert known.list_namespace().items
        with pytest.raises(client.ApiException) as forbidden:
            known.delete_namespace("default")
        assert unknown.value.status == 401 and forbidden.value.status == 403
        assert json.loads(forbidden.value.body)["message"] == (
            'namespaces "default" is forbidden: User "jane" cannot delete resource "namespaces" in API group "" '
            'in the namespace "default"'
        )
    finally:
        fleet.stop_all()
