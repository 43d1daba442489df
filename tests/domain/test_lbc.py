"""The AWS Load Balancer Controller as Launchpod installs it: every object valid, named as upstream's
chart names them, its RBAC and IAM policy upstream's, and the reasons an NLB cannot come."""

from __future__ import annotations

import pytest
from launchpod.domain import dependencies
from launchpod.domain.dependencies import lbc, objects

from tests import manifests

BUILT = objects.objects_for(lbc.NAME, "v3.5.0", "us-east-1", "demo", "vpc-0abc")


def _one(kind: str) -> dict:
    return next(o for o in BUILT if o["kind"] == kind)


@pytest.mark.parametrize("obj", BUILT, ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_every_object_validates(obj):
    assert manifests.errors(obj) == []


def test_the_manifest_pins_it_as_an_optional_dependency():
    entry = next(m for m in dependencies.manifest().manifests if m.name == lbc.NAME)
    assert (entry.version, entry.required) == ("v3.5.0", False)
    assert lbc.NAME not in {m.name for m in dependencies.wanted_manifests(False)}
    assert lbc.NAME in {m.name for m in dependencies.wanted_manifests(True)}


def test_the_deployment_names_its_cluster_region_and_vpc_and_runs_as_its_service_account():
    deployment = _one("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["metadata"] == {**deployment["metadata"], "name": lbc.NAME, "namespace": "kube-system"}
    assert pod["containers"][0]["args"] == ["--cluster-name=demo", "--aws-region=us-east-1", "--aws-vpc-id=vpc-0abc"]
    assert pod["serviceAccountName"] == lbc.NAME == _one("ServiceAccount")["metadata"]["name"]
    assert objects.workload_of(BUILT) is deployment


@pytest.mark.parametrize(
    ("region", "registry"),
    [
        ("us-east-1", "602401143452.dkr.ecr.us-east-1.amazonaws.com"),
        ("me-south-1", "558608220178.dkr.ecr.me-south-1.amazonaws.com"),
        ("eu-south-1", "590381155156.dkr.ecr.eu-south-1.amazonaws.com"),
    ],
)
def test_the_image_comes_from_the_regional_eks_registry(region, registry):
    assert lbc.image("v3.5.0", region) == f"{registry}/amazon/aws-load-balancer-controller:v3.5.0"


def test_it_installs_the_crds_the_controller_watches():
    names = {o["metadata"]["name"] for o in BUILT if o["kind"] == "CustomResourceDefinition"}
    assert names == {"targetgroupbindings.elbv2.k8s.aws", "ingressclassparams.elbv2.k8s.aws"}


def test_rbac_binds_the_cluster_role_and_leader_election_role_to_the_service_account():
    subject = {"kind": "ServiceAccount", "name": lbc.NAME, "namespace": "kube-system"}
    for kind, role in (("ClusterRoleBinding", "ClusterRole"), ("RoleBinding", "Role")):
        binding = _one(kind)
        assert binding["subjects"] == [subject]
        assert binding["roleRef"]["name"] == _one(role)["metadata"]["name"]
    services = [r for r in _one("ClusterRole")["rules"] if "services/status" in r["resources"]]
    assert services and "patch" in services[0]["verbs"]  # it writes the NLB's hostname to the Service


def test_the_iam_policy_is_upstreams_and_allows_creating_tagged_nlbs():
    policy = lbc.iam_policy()
    actions = {a for s in policy["Statement"] for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert {"elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:AddTags", "ec2:DescribeSubnets"} <= actions
    assert len(policy["Statement"]) == 16


def test_an_endpoint_says_why_no_nlb_comes():
    assert "POST /api/clusters/demo/dependencies" in (lbc.blocked("demo", None) or "")
    stopped = {"spec": {"replicas": 2}, "status": {"readyReplicas": 0}}
    assert "0/2 ready replicas" in (lbc.blocked("demo", stopped) or "")
    assert lbc.blocked("demo", {"spec": {"replicas": 2}, "status": {"readyReplicas": 1}}) is None
