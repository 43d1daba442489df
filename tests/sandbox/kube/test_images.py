"""A node pulls AWS's cluster images only from the registry account that publishes them in that region;
otherwise the container waits in ErrImagePull, then ImagePullBackOff, with the kubelet's words."""

from __future__ import annotations

import copy

import pytest
from launchpod.domain.dependencies import objects

from sandbox.controllers.images import pull_error
from sandbox.controllers.workloads import _reconcile
from sandbox.kube import KubeFleet
from tests.instance_facts import placement
from tests.sandbox.kube.support import ready_node

NODE = ready_node(
    "hyperpod-i-1",
    {"node.kubernetes.io/instance-type": "ml.p5.48xlarge", "sagemaker.amazonaws.com/compute-type": "hyperpod"},
    {"cpu": "191", "memory": "1900Gi", "vpc.amazonaws.com/efa": "32"},
)


@pytest.mark.parametrize(
    ("image", "pulls"),
    [
        ("905418368575.dkr.ecr.us-west-2.amazonaws.com/hyperpod-health-monitoring-agent:1.0", True),
        ("767398015722.dkr.ecr.us-west-2.amazonaws.com/hyperpod-health-monitoring-agent:1.0", False),
        ("767398015722.dkr.ecr.us-east-1.amazonaws.com/hyperpod-health-monitoring-agent:1.0", True),
        ("296578399912.dkr.ecr.ap-southeast-3.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.6", True),
        ("602401143452.dkr.ecr.ap-southeast-3.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.6", False),
        ("quay.io/kuberay/operator:v1.7.0", True),
    ],
)
def test_aws_images_pull_only_from_the_account_that_publishes_them_in_that_region(image, pulls):
    assert (pull_error(image) is None) is pulls


@pytest.fixture
def fleet():
    fleet = KubeFleet()
    fleet.start_for("img")
    yield fleet
    fleet.stop_all()


def _install(fleet, built):
    kinds = {"Namespace": "v1/namespaces", "DaemonSet": "apps/v1/daemonsets", "Node": "v1/nodes"}

    async def put(emu):
        for obj in built:
            if obj["kind"] in kinds:
                await emu.put_object(kinds[obj["kind"]], copy.deepcopy(obj))

    fleet.call("img", put)


def _agent_container(fleet) -> dict:
    fleet.call("img", _reconcile)
    (pod,) = fleet.call("img", lambda e: e.list_objects("v1/pods", "aws-hyperpod"))
    return pod["status"]["containerStatuses"][0]


def test_the_health_agent_built_for_the_region_runs(fleet):
    _install(fleet, [NODE, *objects.health_monitoring_agent("1.0.819.0_1.0.267.0", "us-west-2")])
    assert _agent_container(fleet)["ready"] is True


def test_an_agent_image_from_another_regions_account_waits_in_image_pull_back_off(fleet):
    built = objects.health_monitoring_agent("1.0.819.0_1.0.267.0", "us-west-2")
    daemonset = next(o for o in built if o["kind"] == "DaemonSet")
    image = "767398015722.dkr.ecr.us-west-2.amazonaws.com/hyperpod-health-monitoring-agent:1.0.819.0_1.0.267.0"
    daemonset["spec"]["template"]["spec"]["containers"][0]["image"] = image
    _install(fleet, [NODE, *built])
    first = _agent_container(fleet)
    assert first["state"]["waiting"]["reason"] == "ErrImagePull" and first["ready"] is False
    assert first["state"]["waiting"]["message"] == (
        f'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve '
        f'reference "{image}": {image}: not found'
    )
    then = _agent_container(fleet)
    assert then["state"]["waiting"]["reason"] == "ImagePullBackOff"
    assert then["state"]["waiting"]["message"].startswith(f'Back-off pulling image "{image}": ErrImagePull: ')
    found = fleet.call("img", lambda e: e.get_object("apps/v1/daemonsets", "aws-hyperpod", "health-monitoring-agent"))
    assert (found["status"]["desiredNumberScheduled"], found["status"]["numberReady"]) == (1, 0)
    events = fleet.call("img", lambda e: e.list_objects("v1/events", "aws-hyperpod"))
    assert [(e["reason"], e["source"]["component"]) for e in events] == [("Failed", "kubelet")]


def test_the_efa_plugin_built_for_a_region_with_its_own_eks_account_runs(fleet):
    _install(fleet, [NODE, *objects.efa_device_plugin("v0.5.6", "ap-southeast-3", placement())])
    fleet.call("img", _reconcile)
    found = fleet.call("img", lambda e: e.get_object("apps/v1/daemonsets", "kube-system", "efa-device-plugin"))
    assert (found["status"]["desiredNumberScheduled"], found["status"]["numberReady"]) == (1, 1)


@pytest.mark.parametrize(
    ("image", "host"),
    [
        ("quay.io/kuberay/operator:v1.7.0", "quay.io"),
        ("nvcr.io/nvidia/k8s-device-plugin:v0.17.2", "nvcr.io"),
        ("busybox:1.36", "registry-1.docker.io"),
        ("905418368575.dkr.ecr.us-west-2.amazonaws.com/hyperpod-health-monitoring-agent:1.0", None),
    ],
)
def test_without_a_route_to_the_internet_only_ecr_in_the_nodes_region_answers(image, host):
    # A subnet that reaches AWS through VPC endpoints only (ecr.api, ecr.dkr, s3): ECR in the node's
    # own region pulls, everything else times out connecting.
    error = pull_error(image, "us-east-1", internet=False)
    if host is None:  # ECR, but in another region: no endpoint for it either
        assert error is not None and "i/o timeout" in error
        assert pull_error(image.replace("us-west-2", "us-east-1"), "us-east-1", internet=False) is not None
        assert pull_error(image, "us-west-2", internet=False) is None
    else:
        assert error is not None and f"dial tcp {host}:443: i/o timeout" in error
        assert pull_error(image, "us-east-1", internet=True) is None


def test_on_a_node_without_internet_egress_only_the_regions_ecr_images_run(fleet):
    isolated = copy.deepcopy(NODE)
    isolated["metadata"]["labels"]["topology.kubernetes.io/region"] = "us-east-1"
    isolated["metadata"]["annotations"] = {"sandbox.launchpod.dev/internet-egress": "false"}
    built = objects.health_monitoring_agent("1.0.819.0_1.0.267.0", "us-east-1")
    _install(fleet, [isolated, *built])
    assert _agent_container(fleet)["ready"] is True  # from ECR in the node's region, through its endpoints
    daemonset = next(o for o in built if o["kind"] == "DaemonSet")
    daemonset["spec"]["template"]["spec"]["containers"][0]["image"] = "public.ecr.aws/example/agent:1"
    _install(fleet, [daemonset])
    waiting = _agent_container(fleet)["state"].get("waiting") or {}
    assert waiting.get("reason") in ("ErrImagePull", "ImagePullBackOff")
    assert "dial tcp public.ecr.aws:443: i/o timeout" in waiting["message"]
