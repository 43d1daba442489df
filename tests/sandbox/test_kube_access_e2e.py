"""Who may use a cluster's Kubernetes API: the emulated API server answers as EKS does, from the
cluster's access entries (401 without one, 403 beyond what its access policies grant)."""

from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s

from sandbox.kube import mint_token
from tests.sandbox.clusters import grant_view, their_eks_cluster

pytestmark = pytest.mark.e2e

TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole"}
    ],
}


def _role(sandbox, name: str) -> str:
    return sandbox.aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


def _status(call) -> int:
    try:
        call()
    except k8s.ApiException as exc:
        return int(exc.status)
    return 200


def test_only_principals_with_an_access_entry_reach_the_api(sandbox):
    their_eks_cluster(sandbox, "guarded", "API")
    eks = sandbox.aws("eks")
    stranger, viewer, bare = _role(sandbox, "stranger"), _role(sandbox, "viewer"), _role(sandbox, "bare")
    grant_view(sandbox, "guarded", viewer)
    eks.create_access_entry(clusterName="guarded", principalArn=bare)
    cm = k8s.V1ConfigMap(metadata=k8s.V1ObjectMeta(name="x"), data={"a": "b"})

    # No access entry: EKS cannot map the principal, kubectl says "You must be logged in" (401).
    assert _status(lambda: k8s.CoreV1Api(sandbox.kube("guarded", stranger)).list_namespace()) == 401
    # Keys STS never issued, and a token signed for another cluster, do not authenticate either.
    forged = k8s.ApiClient(sandbox.configuration("guarded", mint_token("guarded")))
    assert _status(lambda: k8s.CoreV1Api(forged).list_namespace()) == 401
    elsewhere = sandbox.kube_token("some-other-cluster", viewer)
    other = k8s.ApiClient(sandbox.configuration("guarded", elsewhere))
    assert _status(lambda: k8s.CoreV1Api(other).list_namespace()) == 401
    # An entry without an access policy authenticates but may do nothing beyond discovery (403).
    assert _status(lambda: k8s.CoreV1Api(sandbox.kube("guarded", bare)).list_namespace()) == 403
    assert _status(lambda: k8s.VersionApi(sandbox.kube("guarded", bare)).get_code()) == 200
    # AmazonEKSViewPolicy reads but does not write.
    view = k8s.CoreV1Api(sandbox.kube("guarded", viewer))
    assert _status(view.list_namespace) == 200
    assert _status(lambda: view.create_namespaced_config_map("default", cm)) == 403
    # Deleting the entry takes the access away again.
    eks.delete_access_entry(clusterName="guarded", principalArn=viewer)
    assert _status(lambda: k8s.CoreV1Api(sandbox.kube("guarded", viewer)).list_namespace()) == 401
