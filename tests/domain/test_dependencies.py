"""The dependency manifest and the objects it installs: valid Kubernetes, placed only where the
hardware is, and drift reported when installed versions differ from the pins."""

from __future__ import annotations

import kubernetes_validate
import pytest
from launchpod.domain import dependencies
from launchpod.domain.dependencies import objects

ENTRIES = dependencies.manifest().manifests


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_generated_object_validates_against_the_kubernetes_schema(entry):
    built = objects.objects_for(entry.name, entry.version, "us-east-1")
    assert built
    for obj in built:
        if obj["kind"] == "CustomResourceDefinition":
            assert obj["spec"]["group"] == "ray.io"
            continue
        kubernetes_validate.validate(obj, "1.32.0", strict=True)
        assert obj["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "launchpod"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_entry_pins_its_workload_version_and_image(entry):
    workload = objects.workload_of(objects.objects_for(entry.name, entry.version, "us-west-2"))
    assert workload["metadata"]["labels"]["app.kubernetes.io/version"] == entry.version
    image = workload["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image.endswith(f":{entry.version}")


def _instance_types(name: str) -> list[str]:
    entry = next(e for e in ENTRIES if e.name == name)
    spec = objects.workload_of(objects.objects_for(name, entry.version, "us-east-1"))["spec"]["template"]["spec"]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    return terms[0]["matchExpressions"][0]["values"]


def test_device_plugins_go_only_to_nodes_with_that_hardware():
    assert "ml.p5.48xlarge" in _instance_types("nvidia-device-plugin")
    assert "ml.trn2.48xlarge" not in _instance_types("nvidia-device-plugin")
    assert "ml.trn2.48xlarge" in _instance_types("neuron-device-plugin")
    assert "ml.p5.48xlarge" not in _instance_types("neuron-device-plugin")
    assert "ml.p5en.48xlarge" in _instance_types("efa-device-plugin")
    assert "ml.m5.2xlarge" not in _instance_types("efa-device-plugin")


def test_status_reports_required_optional_pinned_installed_and_drift():
    addons = {"cert-manager": {"addonVersion": "v1.15.0-eksbuild.1", "status": "ACTIVE"}}
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
