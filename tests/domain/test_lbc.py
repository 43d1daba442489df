"""The AWS Load Balancer Controller as Launchpod installs it: every object valid, named as upstream's
chart names them, its RBAC and IAM policy upstream's, its webhooks served with the certificate it mounts,
and the reasons an NLB cannot come."""

from __future__ import annotations

import base64
import datetime

import pytest
from launchpod.domain import dependencies
from launchpod.domain.dependencies import lbc, lbc_tls, objects

from tests import manifests

NOW = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC)
TLS = lbc_tls.generate(NOW)
BUILT = objects.objects_for(lbc.NAME, "v3.5.0", "us-east-1", "demo", "vpc-0abc", TLS)


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
    assert "install it with the cluster's optional dependencies" in (lbc.blocked("demo", None) or "")
    stopped = {"spec": {"replicas": 2}, "status": {"readyReplicas": 0}}
    assert "0/2 ready replicas" in (lbc.blocked("demo", stopped) or "")
    assert lbc.blocked("demo", {"spec": {"replicas": 2}, "status": {"readyReplicas": 1}}) is None


def _index(kind: str) -> int:
    return next(i for i, o in enumerate(BUILT) if o["kind"] == kind)


def test_the_deployment_mounts_the_certificate_secret_applied_before_it():
    pod = _one("Deployment")["spec"]["template"]["spec"]
    assert pod["volumes"] == [{"name": "cert", "secret": {"defaultMode": 420, "secretName": "aws-load-balancer-tls"}}]
    mount = pod["containers"][0]["volumeMounts"][0]
    assert (mount["name"], mount["mountPath"]) == ("cert", "/tmp/k8s-webhook-server/serving-certs")
    secret = _one("Secret")
    assert (secret["metadata"]["name"], secret["metadata"]["namespace"]) == ("aws-load-balancer-tls", "kube-system")
    assert secret["type"] == "kubernetes.io/tls" and set(secret["data"]) == {"ca.crt", "tls.crt", "tls.key"}
    assert _index("Secret") < _index("Deployment")


def test_every_webhook_trusts_the_ca_that_signed_the_served_certificate_for_the_service_name():
    from cryptography import x509

    secret = _one("Secret")["data"]
    ca = x509.load_pem_x509_certificate(base64.b64decode(secret["ca.crt"]))
    cert = x509.load_pem_x509_certificate(base64.b64decode(secret["tls.crt"]))
    cert.verify_directly_issued_by(ca)
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "aws-load-balancer-webhook-service.kube-system.svc" in names.get_values_for_type(x509.DNSName)
    service = _one("Service")
    assert service["metadata"]["name"] == "aws-load-balancer-webhook-service"
    assert service["spec"]["selector"].items() <= _one("Deployment")["spec"]["template"]["metadata"]["labels"].items()
    hooks = _one("MutatingWebhookConfiguration")["webhooks"] + _one("ValidatingWebhookConfiguration")["webhooks"]
    assert len(hooks) == 8
    for hook in hooks:
        assert base64.b64decode(hook["clientConfig"]["caBundle"]) == base64.b64decode(secret["ca.crt"])
        assert hook["clientConfig"]["service"]["name"] == service["metadata"]["name"]


def _matches(selector: dict, labels: dict[str, str]) -> bool:
    ops = {
        "In": lambda v, vs: v in vs,
        "NotIn": lambda v, vs: v not in vs,
        "Exists": lambda v, vs: v is not None,
        "DoesNotExist": lambda v, vs: v is None,
    }
    return all(
        ops[e["operator"]](labels.get(e["key"]), e.get("values", [])) for e in selector.get("matchExpressions", [])
    )


def _sees(hook: dict, resource: str, pod_labels: dict[str, str], namespace_labels: dict[str, str]) -> bool:
    return (
        any(resource in r["resources"] and "CREATE" in r["operations"] for r in hook["rules"])
        and _matches(hook.get("objectSelector") or {}, pod_labels)
        and _matches(hook.get("namespaceSelector") or {}, namespace_labels)
    )


def test_with_the_controller_down_only_opted_in_pods_and_its_own_kinds_meet_a_failing_webhook():
    """Ordinary Pods and Services are created as before; Pods and namespaces that opt in by label, and
    the controller's own kinds, wait for it as the chart has it."""
    hooks = _one("MutatingWebhookConfiguration")["webhooks"] + _one("ValidatingWebhookConfiguration")["webhooks"]
    failing = [h for h in hooks if h["failurePolicy"] == "Fail"]
    assert not [h["name"] for h in failing if _sees(h, "pods", {"app": "web"}, {})]
    assert not [h["name"] for h in hooks if _sees(h, "services", {"app": "web"}, {})]
    opted = {"elbv2.k8s.aws/quic-server-id-inject": "enabled"}
    assert [h["name"] for h in failing if _sees(h, "pods", {"app": "web"}, opted)] == ["quicid.elbv2.k8s.aws"]
    readiness = [h for h in hooks if h["name"] == "mpod.elbv2.k8s.aws"]
    assert readiness[0]["failurePolicy"] == "Ignore"
    tgb = {h["name"] for h in failing if any("targetgroupbindings" in r["resources"] for r in h["rules"])}
    assert tgb == {"mtargetgroupbinding.elbv2.k8s.aws", "vtargetgroupbinding.elbv2.k8s.aws"}


def test_a_stored_certificate_is_kept_while_valid_and_replaced_when_not():
    stored = _one("Secret")
    assert lbc_tls.kept(stored, NOW + datetime.timedelta(days=365)) == TLS
    assert lbc_tls.kept(stored, NOW + datetime.timedelta(days=3650 - 10)) is None  # inside the renewal margin
    assert lbc_tls.kept(None, NOW) is None
    assert lbc_tls.kept({"data": {**stored["data"], "tls.key": ""}}, NOW) is None
    other = lbc_tls.secret(lbc_tls.generate(NOW), {})
    assert lbc_tls.kept({"data": {**stored["data"], "ca.crt": other["data"]["ca.crt"]}}, NOW) is None
    assert lbc_tls.kept({"data": {**stored["data"], "tls.key": other["data"]["tls.key"]}}, NOW) is None
    assert lbc_tls.kept({"data": {**stored["data"], "tls.crt": "bm90IGEgY2VydA=="}}, NOW) is None


def test_without_a_certificate_the_objects_that_carry_it_are_left_out():
    bare = objects.objects_for(lbc.NAME, "v3.5.0", "us-east-1")
    kinds = {o["kind"] for o in bare}
    assert not kinds & {"Secret", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
    assert objects.workload_of(bare)["metadata"]["name"] == lbc.NAME
