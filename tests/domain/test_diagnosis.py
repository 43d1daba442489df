"""Diagnoses from synthetic evidence: NCCL over a job's pods, a node the health agent flagged."""

from __future__ import annotations

from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.domain.nodes import diagnosis


def _node(node_id: str, zone: str) -> dict:
    return {
        "nodeId": node_id,
        "kubernetesNode": f"hyperpod-{node_id}",
        "availabilityZone": zone,
        "instanceType": "ml.p5.48xlarge",
    }


def _pod(name: str, node: str, env: dict[str, str], efa: bool) -> dict:
    requests = {"nvidia.com/gpu": "8", **({"vpc.amazonaws.com/efa": "32"} if efa else {})}
    return {
        "metadata": {"name": name, "namespace": "training"},
        "spec": {
            "nodeName": f"hyperpod-{node}",
            "containers": [
                {
                    "name": "pytorch",
                    "env": [{"name": k, "value": v} for k, v in env.items()],
                    "resources": {"requests": requests},
                }
            ],
        },
    }


def test_nccl_names_the_spread_the_missing_efa_and_the_errors_on_nodes_with_incidents():
    nodes = [_node("i-a", "us-east-1a"), _node("i-b", "us-east-1b")]
    kube = {"i-a": {"status": {"allocatable": {"vpc.amazonaws.com/efa": "32"}}}, "i-b": {"status": {"allocatable": {}}}}
    pods = [
        _pod("llama-0", "i-a", {"FI_PROVIDER": "efa", "NCCL_DEBUG": "INFO"}, efa=True),
        _pod("llama-1", "i-b", {"NCCL_DEBUG": "INFO"}, efa=False),
    ]
    logs = {"llama-1": "step 10\nNCCL WARN NET/Socket : peer closed connection\n"}
    incidents = [{"id": "inc-1", "nodeId": "i-b", "nodes": ["i-b"], "state": "open", "reason": "EFA down"}]
    found = diagnosis.nccl("c1", "llama", nodes, kube, pods, logs, incidents)
    titles = [f["title"] for f in found["findings"]]
    assert "The nodes span several availability zones" in titles
    assert "i-b has no EFA device allocatable" in titles
    assert "Pod llama-1: EFA not requested, FI_PROVIDER=None" in titles
    assert "NCCL errors in the log of llama-1" in titles
    assert "Node i-b had incident inc-1 (open)" in titles
    assert found["cause"].startswith("NCCL errors on nodes that had health incidents")
    assert found["suggestions"] == [] and "pods' environment" in found["limitations"][0]


def test_a_flagged_node_without_an_incident_gets_the_first_rung_suggested():
    view = {
        "instanceStatus": "Running",
        "kubernetesNode": "hyperpod-i-a",
        "healthStatus": "UnschedulablePendingReboot",
        "faultTypes": ["EfaHealth"],
        "healthLabels": {"sagemaker.amazonaws.com/fault-reason": "EfaLinkDown"},
        "taints": [],
        "pods": [],
    }
    found = diagnosis.node("c1", "i-a", view, [{"type": "Ready", "status": "True"}], [], [], None)
    assert found["cause"] == "The HyperPod health agent detected EfaHealth (EfaLinkDown); it asks for a reboot."
    assert [s["tool"] for s in found["suggestions"]] == ["reboot_nodes"]


def test_a_healthy_node_says_nothing_is_wrong_and_suggests_nothing():
    view = {
        "instanceStatus": "Running",
        "kubernetesNode": "hyperpod-i-a",
        "healthStatus": "Schedulable",
        "taints": [],
        "pods": [],
    }
    found = diagnosis.node("c1", "i-a", view, [{"type": "Ready", "status": "True"}], [], [], None)
    assert found["cause"] is None and found["suggestions"] == []
    assert found["findings"][0]["title"] == "Nothing wrong found"


def test_cluster_creation_names_a_quota_too_low_for_what_the_clusters_ask():
    described = hyperpod_cluster_of(
        {
            "ClusterStatus": "Failed",
            "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefghijkl",
            "InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "TargetCount": 2}],
        }
    )
    quotas = {"ml.p5.48xlarge": (2.0, 1, 2), "ml.m5.xlarge": (10.0, 0, 1)}
    found = diagnosis.creation("c1", described, [], [], {}, ["us-east-1a"], quotas)
    short = [f for f in found["findings"] if f["title"].startswith("'ml.p5.48xlarge for cluster usage' is 2")]
    assert short and short[0]["severity"] == "error" and "1 short" in short[0]["title"]
    assert "raise it to at least 3" in found["cause"]
    assert any(f["severity"] == "info" and f["title"].startswith("'ml.m5.xlarge") for f in found["findings"])
    assert found["limitations"] == []
    unread = diagnosis.creation("c1", described, [], [], {}, ["us-east-1a"], None)
    assert "Service Quotas could not be read" in unread["limitations"][0]


def test_a_jobs_pods_are_found_by_launchpods_job_label_before_any_name_guess():
    from launchpod.domain.jobs.manifests import JOB_LABEL

    def pod(name: str, labels: dict[str, str]) -> dict:
        return {"metadata": {"name": name, "labels": labels}}

    mine = pod("worker-0", {JOB_LABEL: "llama"})
    lookalike = pod("llama-other-0", {})  # another job whose name starts the same way
    assert diagnosis.job_pods([mine, lookalike], "llama") == [mine]
    # a job submitted some other way: by the job-name label or the name prefix
    other = pod("llama-0", {"job-name": "llama"})
    assert diagnosis.job_pods([other, pod("x-0", {})], "llama") == [other]
