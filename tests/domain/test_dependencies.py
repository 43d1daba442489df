"""The dependency manifest and the objects it installs: valid Kubernetes, placed only where the
hardware is, and drift reported when installed versions differ from the pins."""

from __future__ import annotations

import kubernetes_validate
import pytest
from launchpod.domain import dependencies
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.dependencies import objects

from tests.fakes.instance_facts import Instances
from tests.instance_facts import placement

ENTRIES = dependencies.manifest().manifests


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_generated_object_validates_against_the_kubernetes_schema(entry):
    built = objects.objects_for(entry.name, entry.version, "us-east-1", placement=placement())
    assert built
    for obj in built:
        if obj["kind"] == "CustomResourceDefinition":
            assert obj["spec"]["group"] in ("ray.io", "elbv2.k8s.aws")  # vendored upstream, byte for byte
            continue
        kubernetes_validate.validate(obj, "1.32.0", strict=True)
        assert obj["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "launchpod"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_entry_pins_its_workload_version_and_image(entry):
    workload = objects.workload_of(objects.objects_for(entry.name, entry.version, "us-west-2"))
    assert workload["metadata"]["labels"]["app.kubernetes.io/version"] == entry.version
    image = workload["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image.endswith(f":{entry.version}")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_listing_reads_the_same_workload_the_install_applies(entry):
    # the dependencies listing looks up this object's version label; it skips parsing the Ray CRDs
    installed = objects.workload_of(objects.objects_for(entry.name, "v9.8.7", "eu-west-1"))
    assert objects.entry_workload(entry.name, "v9.8.7", "eu-west-1") == installed


def _instance_types(name: str) -> list[str]:
    entry = next(e for e in ENTRIES if e.name == name)
    built = objects.objects_for(name, entry.version, "us-east-1", placement=placement())
    spec = objects.workload_of(built)["spec"]["template"]["spec"]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    return terms[0]["matchExpressions"][0]["values"]


def test_device_plugins_go_only_to_nodes_with_that_hardware():
    """From EC2's facts about every type HyperPod offers: the types a 15-row table once missed get theirs."""
    for newer in ("ml.p6-b300.48xlarge", "ml.g5.2xlarge", "ml.g7e.48xlarge", "ml.g4dn.xlarge"):
        assert newer in _instance_types("nvidia-device-plugin")
    assert "ml.trn1n.32xlarge" in _instance_types("neuron-device-plugin")
    assert "ml.p6-b300.48xlarge" in _instance_types("efa-device-plugin")
    assert "ml.p5.48xlarge" in _instance_types("nvidia-device-plugin")
    assert "ml.trn2.48xlarge" not in _instance_types("nvidia-device-plugin")
    assert "ml.trn2.48xlarge" in _instance_types("neuron-device-plugin")
    assert "ml.p5.48xlarge" not in _instance_types("neuron-device-plugin")
    assert "ml.p5en.48xlarge" in _instance_types("efa-device-plugin")
    assert "ml.m5.2xlarge" not in _instance_types("efa-device-plugin")


def test_the_efa_plugin_runs_wherever_a_job_asks_for_efa():
    """A pod that requests vpc.amazonaws.com/efa stays Pending on a node without the device plugin: every
    type whose jobs request EFA interfaces carries the plugin, and no other type does."""
    asking = {t for t, acc in Instances().all().items() if acc.efa}
    assert {"ml.g5.12xlarge", "ml.g6.12xlarge", "ml.g6e.12xlarge", "ml.p5.48xlarge"} <= asking
    assert set(_instance_types("efa-device-plugin")) == asking


def test_status_reports_required_optional_pinned_installed_and_drift():
    addons = {"cert-manager": EksAddon("cert-manager", "ACTIVE", "v1.15.0-eksbuild.1")}
    rows = {r["name"]: r for r in dependencies.status(addons, {"nvidia-device-plugin": "v0.17.2"})}
    assert rows["cert-manager"]["drift"] is True and rows["cert-manager"]["state"] == "ACTIVE"
    assert rows["metrics-server"]["state"] == "NOT_INSTALLED" and rows["metrics-server"]["drift"] is False
    assert rows["nvidia-device-plugin"]["drift"] is False and rows["nvidia-device-plugin"]["state"] == "Applied"
    assert rows["aws-fsx-csi-driver"]["required"] is False
    assert {r["kind"] for r in rows.values()} == {"addon", "manifest"}


def test_optional_entries_are_installed_only_when_asked():
    required = {a.name for a in dependencies.wanted_addons(False)}
    everything = {a.name for a in dependencies.wanted_addons(True)}
    assert "aws-fsx-csi-driver" not in required and "aws-fsx-csi-driver" in everything
    assert "kuberay-operator" not in {m.name for m in dependencies.wanted_manifests(False)}


def test_kubernetes_versions_are_the_hyperpod_supported_ones_in_eks_standard_support_newest_first():
    pinned = dependencies.manifest().kubernetes
    supported = dependencies.kubernetes_versions()
    assert supported == ("1.34",)
    for entry in pinned.versions:
        in_standard = entry.standardSupportEnds > pinned.reviewed
        assert (entry.version in supported) == (entry.hyperpod and in_standard), entry


def test_the_contracts_mirror_the_manifests_kubernetes_versions():
    from launchpod.contracts.common import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS

    assert dependencies.kubernetes_versions() == SUPPORTED_KUBERNETES_VERSIONS
    assert dependencies.kubernetes_versions()[0] == DEFAULT_KUBERNETES_VERSION


def _container(name: str, region: str) -> dict:
    entry = next(e for e in ENTRIES if e.name == name)
    return objects.workload_of(objects.objects_for(name, entry.version, region))["spec"]["template"]["spec"][
        "containers"
    ][0]


@pytest.mark.parametrize(
    ("region", "registry"),
    [
        ("us-east-1", "767398015722.dkr.ecr.us-east-1.amazonaws.com"),
        ("us-west-2", "905418368575.dkr.ecr.us-west-2.amazonaws.com"),
        ("eu-south-2", "626887787726.dkr.ecr.eu-south-2.amazonaws.com"),
        ("me-central-1", "767398015722.dkr.ecr.us-east-1.amazonaws.com"),  # not in the chart's map
    ],
)
def test_the_health_agent_image_comes_from_the_regions_hyperpod_account(region, registry):
    assert _container("health-monitoring-agent", region)["image"].startswith(
        registry + "/hyperpod-health-monitoring-agent:"
    )


@pytest.mark.parametrize(
    ("region", "registry"),
    [
        ("us-east-1", "602401143452.dkr.ecr.us-east-1.amazonaws.com"),
        ("eu-south-2", "455263428931.dkr.ecr.eu-south-2.amazonaws.com"),
        ("ap-southeast-3", "296578399912.dkr.ecr.ap-southeast-3.amazonaws.com"),
    ],
)
def test_the_efa_device_plugin_image_comes_from_the_regions_eks_registry(region, registry):
    assert _container("efa-device-plugin", region)["image"].startswith(registry + "/eks/aws-efa-k8s-device-plugin:")


def test_the_health_agent_learns_its_node_name_and_ip_from_the_downward_api():
    env = {
        e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"]
        for e in _container("health-monitoring-agent", "us-east-1")["env"]
    }
    assert env == {"NODE_NAME": "spec.nodeName", "NODE_IP": "status.hostIP"}


def _kuberay() -> list[dict]:
    entry = next(e for e in ENTRIES if e.name == "kuberay-operator")
    return objects.objects_for(entry.name, entry.version, "us-east-1")


def test_kuberay_installs_the_crd_of_every_kind_its_operator_watches():
    crds = {o["metadata"]["name"] for o in _kuberay() if o["kind"] == "CustomResourceDefinition"}
    assert crds == {"rayclusters.ray.io", "rayjobs.ray.io", "rayservices.ray.io"}


def _granted(rules: list[dict]) -> set[tuple[str, str, str]]:
    return {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def test_kuberay_cluster_role_grants_everything_the_upstream_role_grants():
    role = next(o for o in _kuberay() if o["kind"] == "ClusterRole")
    granted = _granted(role["rules"])
    assert _granted(list(objects.kuberay_rules())) <= granted
    # the RayCluster controller's informers on Secrets and PVCs, which the old role lacked
    assert {("", "secrets", "watch"), ("", "persistentvolumeclaims", "list")} <= granted
    binding = next(o for o in _kuberay() if o["kind"] == "ClusterRoleBinding")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "kuberay-operator", "namespace": "kuberay-operator"}
    ]


def test_kuberay_leader_election_has_its_namespaced_role():
    role = next(o for o in _kuberay() if o["kind"] == "Role")
    assert role["metadata"]["namespace"] == "kuberay-operator"
    assert ("coordination.k8s.io", "leases", "update") in _granted(role["rules"])


def test_the_health_agent_entry_installs_hyperpods_deep_health_check_and_patching_rbac():
    entry = next(e for e in ENTRIES if e.name == "health-monitoring-agent")
    built = {(o["kind"], o["metadata"]["name"]): o for o in objects.objects_for(entry.name, entry.version, "us-east-1")}
    dhc = built[("ClusterRole", "deep-health-check-service-account-role")]
    assert _granted(dhc["rules"]) >= {("", "nodes", "list"), ("", "pods", "patch")}
    dhc_binding = built[("ClusterRoleBinding", "deep-health-check-service-account-role-binding")]
    assert dhc_binding["subjects"][0] == {
        "kind": "ServiceAccount",
        "name": "deep-health-check-service-account",
        "namespace": "aws-hyperpod",
    }
    assert ("ServiceAccount", "deep-health-check-service-account") in built
    patching = built[("ClusterRole", "hyperpod-patching")]
    assert _granted(patching["rules"]) == {("", "pods", "list"), ("", "pods/eviction", "create")}
    assert built[("ClusterRoleBinding", "hyperpod-patching")]["subjects"] == [
        {"kind": "User", "name": "hyperpod-service-linked-role", "apiGroup": "rbac.authorization.k8s.io"}
    ]


def test_a_pin_offered_for_the_clusters_kubernetes_version_is_wanted_without_drift():
    pin = next(a for a in dependencies.manifest().addons if a.name == "cert-manager").version
    offered = {"cert-manager": ([pin, "v1.17.0-eksbuild.1"], "v1.17.0-eksbuild.1")}
    addons = {"cert-manager": EksAddon("cert-manager", "ACTIVE", pin)}
    row = next(r for r in dependencies.status(addons, {}, offered, "1.34") if r["name"] == "cert-manager")
    assert (row["wanted"], row["drift"], row.get("note")) == (pin, False, None)


def test_a_pin_eks_does_not_offer_is_drift_with_ekss_default_wanted_even_once_installed():
    offered = {"cert-manager": (["v1.19.0-eksbuild.1"], "v1.19.0-eksbuild.1")}
    pin = next(a for a in dependencies.manifest().addons if a.name == "cert-manager").version
    for installed in (None, "v1.19.0-eksbuild.1"):
        addons = {"cert-manager": EksAddon("cert-manager", "ACTIVE", installed)} if installed else {}
        row = next(r for r in dependencies.status(addons, {}, offered, "1.34") if r["name"] == "cert-manager")
        assert row["wanted"] == "v1.19.0-eksbuild.1" and row["drift"] is True
        assert row["note"] == f"{pin} is not offered for Kubernetes 1.34; EKS's default v1.19.0-eksbuild.1 is used"


def test_reconcile_plans_ekss_default_when_the_pin_is_not_offered_and_nothing_once_it_runs():
    offered = {a.name: ([a.version], a.version) for a in dependencies.manifest().addons}
    offered["cert-manager"] = (["v1.19.0-eksbuild.1"], "v1.19.0-eksbuild.1")
    installed = {a.name: EksAddon(a.name, "ACTIVE", a.version) for a in dependencies.wanted_addons(False)}
    installed["cert-manager"] = EksAddon("cert-manager", "ACTIVE", "v1.18.1-eksbuild.1")
    rows = dependencies.status(
        installed, {m.name: m.version for m in dependencies.manifest().manifests}, offered, "1.34"
    )
    plan = dependencies.reconcile_plan("c1", rows, include_optional=False)
    assert [s.target for s in plan.steps] == ["EKS add-on cert-manager v1.19.0-eksbuild.1"]
    installed["cert-manager"] = EksAddon("cert-manager", "ACTIVE", "v1.19.0-eksbuild.1")
    rows = dependencies.status(
        installed, {m.name: m.version for m in dependencies.manifest().manifests}, offered, "1.34"
    )
    assert dependencies.reconcile_plan("c1", rows, include_optional=False).steps == ()


def test_configuration_problems_name_the_missing_required_and_undefined_keys():
    from launchpod.domain import addons

    schema = {
        "type": "object",
        "required": ["executionRoleArn", "tlsCertificateS3Bucket"],
        "additionalProperties": False,
        "properties": {
            "executionRoleArn": {"type": "string"},
            "tlsCertificateS3Bucket": {"type": "string"},
            "alb": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
        },
    }
    assert addons.configuration_problems(schema, {}) == [
        "$.executionRoleArn: is required",
        "$.tlsCertificateS3Bucket: is required",
    ]
    assert addons.configuration_problems(schema, {"executionRoleArn": "r", "tlsCertificateS3Bucket": "b", "x": 1}) == [
        "$.x: is not defined in the add-on's schema"
    ]
    assert addons.configuration_problems(
        schema, {"executionRoleArn": "r", "tlsCertificateS3Bucket": "b", "alb": {"enabled": "yes"}}
    ) == ["$.alb.enabled: must be boolean"]
