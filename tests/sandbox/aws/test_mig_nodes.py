"""GPU partitioning in the sandbox: a group labelled nvidia.com/mig.config advertises its GPUs' MIG partitions
(NVIDIA's mixed strategy; one profile or the chart's mix of several) with the configuration's state, and one
its GPU cannot take is failed; nodes of the
types HyperPod labels with their network topology carry two instances per bottom-layer block."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.aws import sagemaker as hyperpod
from tests.sandbox.aws.hyperpod_support import instance_group, ready_cluster

pytestmark = pytest.mark.usefixtures("hyperpod_installed")

LAYER_3 = "topology.k8s.aws/network-node-layer-3"


def _kube_nodes(group: str) -> list[dict[str, Any]]:
    from moto.sagemaker.models import sagemaker_backends

    backend = sagemaker_backends["123456789012"]["us-east-1"]
    nodes = hyperpod.desired_nodes(backend, "launchpod-eks")
    return [n for n in nodes if n["metadata"]["labels"]["sagemaker.amazonaws.com/instance-group-name"] == group]


def test_a_mig_group_advertises_partitions_and_a_profile_of_another_gpu_fails(sm, eks_arn):
    mig = {"KubernetesConfig": {"Labels": {"nvidia.com/mig.config": "all-1g.10gb"}}}
    wrong = {"KubernetesConfig": {"Labels": {"nvidia.com/mig.config": "all-1g.5gb"}}}  # an A100 40GB profile
    mixed = {"KubernetesConfig": {"Labels": {"nvidia.com/mig.config": "mixed-3-1g.10gb-1-4g.40gb"}}}
    groups = [
        instance_group("mig", count=1, **mig),
        instance_group("wrong", count=1, **wrong),
        instance_group("mixed", count=1, **mixed),
    ]
    ready_cluster(sm, eks_arn, *groups, instance_group("whole", count=4))
    (node,) = _kube_nodes("mig")
    assert node["metadata"]["labels"]["nvidia.com/mig.config.state"] == "success"
    allocatable = node["status"]["allocatable"]
    assert (allocatable["nvidia.com/mig-1g.10gb"], allocatable["nvidia.com/gpu"]) == ("56", "0")  # 8 H100 x 7
    (mix,) = _kube_nodes("mixed")
    amounts = {k: v for k, v in mix["status"]["allocatable"].items() if k.startswith("nvidia.com/")}
    assert amounts == {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "24", "nvidia.com/mig-4g.40gb": "8"}
    (failed,) = _kube_nodes("wrong")
    assert failed["metadata"]["labels"]["nvidia.com/mig.config.state"] == "failed"
    assert failed["status"]["allocatable"]["nvidia.com/gpu"] == "8"
    blocks = sorted(n["metadata"]["labels"][LAYER_3] for n in _kube_nodes("whole"))
    assert len(blocks) == 4 and len(set(blocks)) == 2 and blocks.count(blocks[0]) == 2
