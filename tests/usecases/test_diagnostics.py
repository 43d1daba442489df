"""The diagnostics use cases against in-memory SageMaker, EC2, Service Quotas, Kubernetes and stores: what
they read for a diagnosis, and the findings a user is shown from it."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import RetryableError
from launchpod.usecases import diagnostics, incidents, nodes

from tests.fakes.clusters import Clusters
from tests.fakes.ec2 import Ec2
from tests.fakes.incidents import IncidentDocs
from tests.fakes.kube_listing import KubeLists
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

P5 = "ml.p5.48xlarge"


def _ports(
    clusters: dict[str, dict[str, Any]],
    quotas: ServiceQuotas | None = None,
    kube: KubeLists | None = None,
    logs: KubeLists | None = None,
    summaries: list[dict[str, Any]] | None = None,
) -> diagnostics.DiagnosisPorts:
    sm = SageMaker(clusters, {"c1": summaries or []})
    return diagnostics.DiagnosisPorts(
        nodes=nodes.NodePorts(sagemaker=sm, kube=kube or KubeLists({}), operations=Operations(), workflows=Workflows()),
        incidents=incidents.IncidentPorts(clusters=Clusters({"c1": {}}), incidents=IncidentDocs()),
        sagemaker=sm,
        ec2=Ec2(["us-east-1a", "us-east-1b"], {"p5.48xlarge": ["us-east-1b"]}),
        quotas=quotas or ServiceQuotas({}),
        operations=Operations(),
        pod_log=(logs or KubeLists()).pod_log,
    )


def _hyperpod(name: str, count: int) -> dict[str, Any]:
    group = {"InstanceGroupName": "gpu", "InstanceType": P5, "TargetCount": count, "CurrentCount": 0}
    return {"ClusterName": name, "ClusterStatus": "Creating", "InstanceGroups": [group]}


def _titles(view: Any) -> list[str]:
    return [f.title for f in view.findings]


def test_a_creation_reads_the_clusters_own_types_where_they_are_offered_and_the_quota_they_pass():
    ports = _ports(
        {"c1": _hyperpod("c1", 2), "other": _hyperpod("other", 3)},
        quotas=ServiceQuotas({f"{P5} for cluster usage": 4.0}),
    )
    found = diagnostics.cluster_creation("c1", None, ports=ports)
    assert [types for types, _ in ports.ec2.offerings_asked] == [["p5.48xlarge"]]  # type: ignore[attr-defined]
    assert f"{P5} is not offered in us-east-1a" in _titles(found)
    assert f"'{P5} for cluster usage' is 4: 1 short" in _titles(found)
    assert found.cause is not None and "raise it to at least 5" in found.cause


def test_a_creation_whose_quotas_cannot_be_read_says_so_and_still_answers():
    ports = _ports(
        {"c1": _hyperpod("c1", 2)}, quotas=ServiceQuotas({}, error=RetryableError("Service Quotas throttled"))
    )
    found = diagnostics.cluster_creation("c1", [P5], ports=ports)
    assert "HyperPod cluster is Creating" in _titles(found)
    assert any("Service Quotas could not be read" in line for line in found.limitations)


def test_nccl_reads_every_container_of_the_jobs_pods_only_and_shows_their_errors():
    node = "i-0aaaaaaaaaaaaaaa1"
    summary = {"InstanceId": node, "InstanceGroupName": "gpu", "InstanceType": P5, "InstanceStatus": {}}
    kube_node = {"metadata": {"name": f"hyperpod-{node}"}, "spec": {"providerID": f"aws:///us-east-1b/{node}"}}
    containers = [{"name": "log-shipper"}, {"name": "pytorch"}]  # a sidecar first: the trainer is not the default
    pods = [
        {
            "metadata": {"name": f"{job}-worker-0", "namespace": "default"},
            "spec": {"nodeName": f"hyperpod-{node}", "containers": containers},
        }
        for job in ("train", "other")
    ]
    logs = KubeLists(logs={"train-worker-0/pytorch": "step 1\nNCCL WARN NET/OFI Couldn't open a fabric provider\n"})
    ports = _ports(
        {"c1": _hyperpod("c1", 1)},
        kube=KubeLists({"Node": [kube_node], "Pod": pods}),
        logs=logs,
        summaries=[summary],
    )
    found = diagnostics.nccl("c1", "train", ports=ports)
    assert logs.logs_read == ["train-worker-0", "train-worker-0"]
    assert "NCCL errors in the log of train-worker-0" in _titles(found)
    assert f"{node} has no EFA device allocatable" in _titles(found)


def test_nccl_in_a_namespace_reads_only_that_teams_job_of_the_name():
    node = "i-0aaaaaaaaaaaaaaa1"
    summary = {"InstanceId": node, "InstanceGroupName": "gpu", "InstanceType": P5, "InstanceStatus": {}}
    kube_node = {"metadata": {"name": f"hyperpod-{node}"}, "spec": {"providerID": f"aws:///us-east-1b/{node}"}}
    pods = [
        {
            "metadata": {"name": f"train-worker-{i}", "namespace": namespace},
            "spec": {"nodeName": f"hyperpod-{node}", "containers": [{"name": "pytorch"}]},
        }
        for i, namespace in enumerate(("default", "hyperpod-ns-team-a"))
    ]
    logs = KubeLists(logs={"train-worker-0": "NCCL WARN default's own error\n", "train-worker-1": "step 1\n"})
    ports = _ports(
        {"c1": _hyperpod("c1", 1)}, kube=KubeLists({"Node": [kube_node], "Pod": pods}), logs=logs, summaries=[summary]
    )
    found = diagnostics.nccl("c1", "train", ports=ports, namespace="hyperpod-ns-team-a")
    assert logs.logs_read == ["train-worker-1"]
    assert "NCCL errors in the log of train-worker-0" not in _titles(found)
    assert "NCCL errors in the log of train-worker-0" in _titles(diagnostics.nccl("c1", "train", ports=ports))
