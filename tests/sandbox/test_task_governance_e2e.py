"""Task governance teams through the sandbox: without the add-on every change is a 409 naming the feature;
with it the policy becomes Kueue WorkloadPriorityClasses and a team its namespace and queues, an equal PUT
is NOOP, a changed borrow limit one UpdateComputeQuota, a type or count the cluster lacks a 422; a job runs
in the team's queue and a queue that is not there is a 422 naming the team's; deleting removes it all (its
dry run names the quota and removes nothing; a second delete is NOOP)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.e2e

NAME = "e2e-tg"
BODY = cluster_body(NAME, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 4})
POLICY = {"priorityClasses": [{"name": "training", "weight": 50}, {"name": "inference", "weight": 90}]}
TEAM = {
    "resources": [{"instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
    "sharing": "LendAndBorrow",
    "borrowLimit": 50,
    "fairShareWeight": 10,
}
NAMESPACE, QUEUE = "hyperpod-ns-research", "hyperpod-ns-research-localqueue"
KUEUE = ("kueue.x-k8s.io", "v1beta1")


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    return NAME


def _put(sandbox, path: str, body: dict, dry_run: bool = False):
    with sandbox.client() as c:
        return c.put(f"/api/clusters/{NAME}{path}", json=body, params={"dryRun": "true"} if dry_run else None)


def _get(sandbox, path: str) -> Any:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}{path}")
    assert response.status_code == 200, response.text
    return response.json()


def _poll(check, what: str, timeout: float = 60) -> Any:
    return wait_until(check, timeout, reason=f"{what} did not happen")


def _kueue(sandbox, plural: str, namespace: str | None = None) -> list[str]:
    api = k8s.CustomObjectsApi(sandbox.kube(NAME))
    try:
        if namespace:
            found = api.list_namespaced_custom_object(*KUEUE, namespace, plural)
        else:
            found = api.list_cluster_custom_object(*KUEUE, plural)
    except k8s.ApiException as exc:
        if exc.status == 404:  # Kueue's kinds are not served yet
            return []
        raise
    return sorted(o["metadata"]["name"] for o in found["items"])


def _namespaces(sandbox) -> list[str]:
    return [n.metadata.name for n in k8s.CoreV1Api(sandbox.kube(NAME)).list_namespace().items]


def test_without_the_add_on_policy_and_teams_are_refused_naming_the_feature(sandbox, cluster):
    for path, body in (("/task-governance/policy", POLICY), ("/teams/research", TEAM)):
        refused = _put(sandbox, path, body)
        assert refused.status_code == 409, refused.text
        assert "taskGovernance" in refused.json()["message"]
    assert _get(sandbox, "/teams")["items"] == []


def test_policy_and_team_become_kueue_objects_and_equal_requests_are_noop(sandbox, cluster):
    with sandbox.client() as c:
        on = c.patch(
            f"/api/clusters/{NAME}/features",
            json={"taskGovernance": {"enabled": True}, "trainingOperator": {"enabled": True}},
        )
    assert on.status_code == 202, on.text
    assert sandbox.wait_operation(on.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"

    made = _put(sandbox, "/task-governance/policy", POLICY)
    assert made.status_code == 200 and made.json()["status"] == "CREATED", made.text
    assert _put(sandbox, "/task-governance/policy", POLICY).json()["status"] == "NOOP"
    # the add-on's controller makes one WorkloadPriorityClass per priority class, one after the other: wait for
    # as many as the policy names (seen once under load: the read came between the first and the second)
    policy = _poll(
        lambda: (
            len((p := _get(sandbox, "/task-governance/policy"))["workloadPriorityClasses"])
            == len(POLICY["priorityClasses"])
            and p
        ),
        "the WorkloadPriorityClasses",
    )
    assert policy["configured"] is True
    assert sorted(policy["workloadPriorityClasses"]) == ["inference-priority", "training-priority"]

    dry = _put(sandbox, "/teams/research", TEAM, dry_run=True)
    assert dry.status_code == 200 and dry.json()["status"] == "PLANNED", dry.text
    assert [s["action"] for s in dry.json()["steps"]] == ["create"]
    assert _get(sandbox, "/teams")["items"] == []  # the dry run made nothing

    created = _put(sandbox, "/teams/research", TEAM)
    assert created.status_code == 200 and created.json()["status"] == "CREATED", created.text
    assert (created.json()["team"]["namespace"], created.json()["team"]["queue"]) == (NAMESPACE, QUEUE)
    _poll(lambda: _kueue(sandbox, "localqueues", NAMESPACE) == [QUEUE], "the team's LocalQueue")
    assert NAMESPACE in _namespaces(sandbox)
    assert _kueue(sandbox, "clusterqueues") == ["hyperpod-ns-research-clusterqueue"]
    assert _get(sandbox, "/teams")["items"][0]["queueReady"] is True

    assert _put(sandbox, "/teams/research", TEAM).json()["status"] == "NOOP"
    sm = sandbox.aws("sagemaker")
    arn = sm.describe_cluster(ClusterName=NAME)["ClusterArn"]
    (summary,) = sm.list_compute_quotas(ClusterArn=arn)["ComputeQuotaSummaries"]
    assert summary["ComputeQuotaVersion"] == 1  # the NOOP called nothing

    changed = _put(sandbox, "/teams/research", {**TEAM, "borrowLimit": 80})
    assert changed.status_code == 200 and changed.json()["status"] == "UPDATED", changed.text
    quota = sm.describe_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"])
    assert quota["ComputeQuotaVersion"] == 2
    assert quota["ComputeQuotaConfig"]["ResourceSharingConfig"] == {"Strategy": "LendAndBorrow", "BorrowLimit": 80}


def test_a_type_or_count_the_cluster_lacks_is_a_422_saying_what_it_has(sandbox, cluster):
    wrong = _put(
        sandbox, "/teams/vision", {**TEAM, "resources": [{"instanceType": "ml.g5.xlarge", "instanceCount": 1}]}
    )
    assert wrong.status_code == 422, wrong.text
    assert "ml.p5.48xlarge (4)" in wrong.json()["message"]
    many = _put(
        sandbox, "/teams/vision", {**TEAM, "resources": [{"instanceType": "ml.p5.48xlarge", "instanceCount": 5}]}
    )
    assert many.status_code == 422 and "has 4 ml.p5.48xlarge" in many.json()["message"], many.text
    gpus = _put(
        sandbox, "/teams/vision", {**TEAM, "resources": [{"instanceType": "ml.p5.48xlarge", "accelerators": 33}]}
    )
    assert gpus.status_code == 422 and "have 32 GPUs" in gpus.json()["message"], gpus.text
    bad_name = _put(sandbox, "/teams/Vision_Team", TEAM)
    assert bad_name.status_code == 422, bad_name.text


def test_a_job_runs_in_the_teams_queue_and_an_unknown_queue_names_the_teams(sandbox, cluster):
    job = {
        "jobName": "queued",
        "namespace": NAMESPACE,
        "queue": QUEUE,
        "priority": "training-priority",
        "instanceGroup": "gpu",
        "image": "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"],
    }
    with sandbox.client("operator") as c:
        refused = c.post(f"/api/clusters/{NAME}/jobs", json={**job, "queue": "hyperpod-ns-nobody-localqueue"})
        assert refused.status_code == 422, refused.text
        assert QUEUE in refused.json()["message"] and refused.json()["details"][0]["field"] == "body.queue"
        submitted = c.post(f"/api/clusters/{NAME}/jobs", json=job)
        assert submitted.status_code == 200, submitted.text

        def running() -> bool:
            view = c.get(f"/api/clusters/{NAME}/jobs/queued", params={"namespace": NAMESPACE}).json()
            return view["status"] in ("Running", "Succeeded")

        _poll(running, "the queued job running", timeout=120)
        assert c.delete(f"/api/clusters/{NAME}/jobs/queued", params={"namespace": NAMESPACE, "confirm": "queued"})


P5 = "ml.p5.48xlarge"
LENDER_NS, LENDER_QUEUE = "hyperpod-ns-lender", "hyperpod-ns-lender-localqueue"


def _job(name: str, namespace: str, queue: str, replicas: int, **extra: Any) -> dict:
    return {
        "jobName": name,
        "namespace": namespace,
        "queue": queue,
        "instanceGroup": "gpu",
        "replicas": replicas,
        "image": "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"],
        **extra,
    }


def _submit(sandbox, job: dict) -> None:
    with sandbox.client("operator") as c:
        submitted = c.post(f"/api/clusters/{NAME}/jobs", json=job)
    assert submitted.status_code == 200, submitted.text


def _job_view(sandbox, name: str, namespace: str) -> dict:
    with sandbox.client("viewer") as c:
        found = c.get(f"/api/clusters/{NAME}/jobs/{name}", params={"namespace": namespace})
    assert found.status_code == 200, found.text
    return found.json()


def _in(sandbox, name: str, namespace: str, status: str, timeout: float = 90) -> dict:
    return _poll(
        lambda: (v := _job_view(sandbox, name, namespace))["status"] == status and v, f"{name} {status}", timeout
    )


def _delete_job(sandbox, name: str, namespace: str) -> None:
    with sandbox.client("operator") as c:
        gone = c.delete(f"/api/clusters/{NAME}/jobs/{name}", params={"namespace": namespace, "confirm": name})
    assert gone.status_code in (200, 202), gone.text


def _team(sandbox, team: str) -> dict:
    return next(t for t in _get(sandbox, "/teams")["items"] if t["team"] == team)


@pytest.fixture
def long_training(sandbox):
    """Jobs train for hours of simulated time meanwhile, so none finishes while the test watches it."""
    sandbox.faults(jobLogIntervalSeconds=3600)
    try:
        yield
    finally:
        sandbox.faults(jobLogIntervalSeconds=10)


def test_a_team_over_its_quota_waits_borrows_idle_compute_then_is_preempted_when_the_lender_needs_it(
    sandbox, cluster, long_training
):
    research = {"resources": [{"instanceType": P5, "instanceCount": 1}], "sharing": "LendAndBorrow", "borrowLimit": 50}
    lender = {"resources": [{"instanceType": P5, "instanceCount": 3}], "sharing": "LendAndBorrow"}
    assert _put(sandbox, "/teams/research", research).status_code == 200
    assert _put(sandbox, "/teams/lender", lender).status_code == 200
    _poll(lambda: _kueue(sandbox, "localqueues", LENDER_NS) == [LENDER_QUEUE], "the lender's LocalQueue")

    # two nodes (16 GPUs) on a quota of 8 that may borrow 50 % more: it waits, saying how short it is
    _submit(sandbox, _job("big", NAMESPACE, QUEUE, 2))
    waiting = _in(sandbox, "big", NAMESPACE, "Queued")
    assert (
        "insufficient unused quota for nvidia.com/gpu in flavor ml.p5.48xlarge, 4 more needed" in waiting["message"]
    ), waiting
    assert waiting["pods"] == []

    # borrowing up to 100 %: admitted on the lender's idle GPUs, and the team shows what it borrowed
    assert _put(sandbox, "/teams/research", {**research, "borrowLimit": 100}).json()["status"] == "UPDATED"
    running = _in(sandbox, "big", NAMESPACE, "Running")
    assert len(running["pods"]) == 2
    team = _poll(lambda: (t := _team(sandbox, "research"))["borrowed"] and t, "research's borrowed GPUs")
    assert [(u["accelerators"], u["instanceCount"]) for u in team["used"]] == [(16, 2)]
    assert [(b["instanceType"], b["accelerators"]) for b in team["borrowed"]] == [(P5, 8)]
    assert [g["accelerators"] for g in team["guaranteed"]] == [8]

    # the lender submits within its own quota: Kueue reclaims what it lent, and the borrower waits again
    _submit(sandbox, _job("reclaim", LENDER_NS, LENDER_QUEUE, 3))
    _in(sandbox, "reclaim", LENDER_NS, "Running")
    preempted = _in(sandbox, "big", NAMESPACE, "Queued")
    assert preempted["reason"] == "Preempted", preempted
    assert "due to reclamation within the cohort" in preempted["message"]
    assert preempted["pods"] == []
    _delete_job(sandbox, "reclaim", LENDER_NS)
    _in(sandbox, "big", NAMESPACE, "Running")  # readmitted once the lender's job is gone
    _delete_job(sandbox, "big", NAMESPACE)


def test_a_four_node_gang_job_is_admitted_only_when_four_nodes_fit_in_one_network_block(
    sandbox, cluster, long_training
):
    research = {"resources": [{"instanceType": P5, "instanceCount": 1}], "sharing": "LendAndBorrow", "borrowLimit": 100}
    assert _put(sandbox, "/teams/research", research).status_code == 200
    assert _put(sandbox, "/teams/lender", {"resources": [{"instanceType": P5, "instanceCount": 3}]}).status_code == 200
    _submit(sandbox, _job("small", NAMESPACE, QUEUE, 1))
    _in(sandbox, "small", NAMESPACE, "Running")

    # every pod in one layer-2 network block (the sandbox's four nodes share one; two per layer-3 block)
    block = {"label": "topology.k8s.aws/network-node-layer-2", "required": True}
    _submit(sandbox, _job("gang", LENDER_NS, LENDER_QUEUE, 4, topology=block))
    waiting = _in(sandbox, "gang", LENDER_NS, "Queued")
    assert "insufficient unused quota for nvidia.com/gpu in flavor ml.p5.48xlarge, 8 more needed" in waiting["message"]
    assert waiting["pods"] == []  # all or nothing: no pod starts while one of the four cannot

    _delete_job(sandbox, "small", NAMESPACE)
    running = _in(sandbox, "gang", LENDER_NS, "Running")
    nodes = {n.metadata.name: n.metadata.labels for n in k8s.CoreV1Api(sandbox.kube(NAME)).list_node().items}
    blocks = {nodes[p["kubernetesNode"]][block["label"]] for p in running["pods"]}
    assert len(running["pods"]) == 4 and len(blocks) == 1, running["pods"]
    _delete_job(sandbox, "gang", LENDER_NS)

    # one layer-3 block holds two of the nodes: four pods required in one never fit, and the job says so
    tight = {"label": "topology.k8s.aws/network-node-layer-3", "required": True}
    _submit(sandbox, _job("tight", LENDER_NS, LENDER_QUEUE, 4, topology=tight))
    stuck = _poll(
        lambda: (
            "allows to fit only 2 out of 4" in ((v := _job_view(sandbox, "tight", LENDER_NS))["message"] or "") and v
        ),
        "the topology verdict",
    )
    assert stuck["status"] == "Queued" and stuck["pods"] == []
    _delete_job(sandbox, "tight", LENDER_NS)
    with sandbox.client() as c:
        assert c.delete(f"/api/clusters/{NAME}/teams/lender", params={"confirm": "lender"}).status_code == 200


def _endpoint(sandbox, name: str) -> dict:
    with sandbox.client("viewer") as c:
        found = c.get(f"/api/clusters/{NAME}/endpoints/{name}")
    assert found.status_code == 200, found.text
    return dict(found.json())


def test_a_higher_priority_job_preempts_a_serving_replica_which_says_why_and_comes_back(
    sandbox, cluster, long_training
):
    """An endpoint in the team's queue holds its 8 GPUs (the whole quota; nothing left to borrow); a job at a
    higher priority in the same queue preempts the replica (Kueue: withinClusterQueue LowerPriority), whose
    replacement waits, saying why; once the job is gone the replica is admitted again."""
    chat = {
        "endpoint": "chat",
        "kind": "container",
        "namespace": NAMESPACE,
        "queue": QUEUE,
        "instanceType": P5,
        "container": {"worker": {"image": "vllm/vllm-openai:v0.10.1", "gpus": 8, "args": ["--served-model-name", "q"]}},
    }
    with sandbox.client("operator") as c:
        deployed = c.post(f"/api/clusters/{NAME}/endpoints", json=chat)
    assert deployed.status_code == 202, deployed.text
    try:
        _poll(lambda: _endpoint(sandbox, "chat")["readyReplicas"] == 1, "chat serving")  # its operation ends later

        _submit(sandbox, _job("urgent", NAMESPACE, QUEUE, 1, priority="training-priority"))
        _in(sandbox, "urgent", NAMESPACE, "Running")
        # Preempted, the replica's workload is requeued ("waiting ... for Kueue to admit it") until Kueue's next
        # admission attempt says why it cannot be admitted (QuotaReserved False, "couldn't assign flavors").
        (replica,) = _poll(
            lambda: [p for p in _endpoint(sandbox, "chat")["pods"] if "couldn't assign" in (p.get("message") or "")],
            "the replica saying it was preempted and why it waits",
        )
        assert replica["phase"] == "Pending" and replica["kubernetesNode"] is None, replica
        assert "Preempted" in replica["message"], replica
        assert "due to prioritization in the ClusterQueue" in replica["message"], replica
        assert f"waiting in queue {QUEUE}: couldn't assign flavors" in replica["message"], replica
        assert _endpoint(sandbox, "chat")["readyReplicas"] == 0

        _delete_job(sandbox, "urgent", NAMESPACE)
        _poll(lambda: _endpoint(sandbox, "chat")["readyReplicas"] == 1, "chat serving again")
        done = sandbox.wait_operation(deployed.json()["operation"]["id"], timeout=60)
        assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    except BaseException:  # the next test starts from a team without this endpoint or job; the failure is the news
        with sandbox.client("admin") as c:
            c.post(f"/api/operations/{deployed.json()['operation']['id']}/cancel", json={"reason": "its test failed"})
            c.delete(f"/api/clusters/{NAME}/jobs/urgent", params={"namespace": NAMESPACE, "confirm": "urgent"})
            with contextlib.suppress(Exception, pytest.fail.Exception):
                wait_until(
                    lambda: c.delete(f"/api/clusters/{NAME}/endpoints/chat").status_code in (202, 404),
                    reason="endpoint chat deleted after its test failed",
                )
        raise
    with sandbox.client("operator") as c:
        gone = c.delete(f"/api/clusters/{NAME}/endpoints/chat")
    assert gone.status_code == 202, gone.text  # it finishes while the team is deleted


@pytest.fixture
def checkpointing(sandbox):
    """Meanwhile a job trains a step every half second (100 simulated seconds) and checkpoints every third."""
    sandbox.faults(jobLogIntervalSeconds=100, jobCheckpointEverySteps=3)
    try:
        yield
    finally:
        sandbox.faults(jobLogIntervalSeconds=10, jobCheckpointEverySteps=1)


def _log(sandbox, job: str, namespace: str) -> list[str]:
    with sandbox.client("viewer") as c:
        found = c.get(f"/api/clusters/{NAME}/jobs/{job}/logs", params={"namespace": namespace, "tail": 500})
    assert found.status_code == 200, found.text
    return list(found.json()["lines"])


def _steps(lines: list[str], marker: str) -> list[int]:
    """The step numbers of the lines that say ``marker`` (``step `` or ``resuming from step ``)."""
    return [int(line.split(marker, 1)[1].split("/")[0].split()[0]) for line in lines if marker in line]


def _scale(sandbox, endpoint: str, replicas: int) -> None:
    with sandbox.client("operator") as c:
        scaled = c.patch(f"/api/clusters/{NAME}/endpoints/{endpoint}", json={"replicas": replicas})
    assert scaled.status_code == 202, scaled.text
    done = sandbox.wait_operation(scaled.json()["operation"]["id"], timeout=90)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])


def test_a_high_priority_endpoint_scaling_up_preempts_training_which_resumes_from_its_checkpoint(
    sandbox, cluster, checkpointing
):
    """The team's quota is two nodes' GPUs: a training job at training priority holds one, its endpoint at
    inference priority the other. The endpoint scaling to two replicas preempts the job (Kueue: withinClusterQueue
    LowerPriority; AWS, "Task governance for model deployment on HyperPod"), whose pods stop and whose view says
    why; once the endpoint scales back the job is admitted again and goes on from its last checkpoint."""
    _poll(lambda: _endpoint_gone(sandbox, "chat"), "the previous test's endpoint deleted")
    research = {"resources": [{"instanceType": P5, "instanceCount": 2}], "sharing": "LendAndBorrow", "borrowLimit": 100}
    assert _put(sandbox, "/teams/research", research).status_code == 200
    _submit(sandbox, _job("pretrain", NAMESPACE, QUEUE, 1, priority="training-priority"))
    _in(sandbox, "pretrain", NAMESPACE, "Running")
    _poll(lambda: max(_steps(_log(sandbox, "pretrain", NAMESPACE), "step "), default=0) >= 4, "four steps")

    spike = {
        "endpoint": "spike",
        "kind": "container",
        "namespace": NAMESPACE,
        "queue": QUEUE,
        "priority": "inference-priority",
        "instanceType": P5,
        "container": {"worker": {"image": "vllm/vllm-openai:v0.10.1", "gpus": 8, "args": ["--served-model-name", "s"]}},
    }
    with sandbox.client("operator") as c:
        deployed = c.post(f"/api/clusters/{NAME}/endpoints", json=spike)
    assert deployed.status_code == 202, deployed.text
    assert sandbox.wait_operation(deployed.json()["operation"]["id"], timeout=90)["status"] == "SUCCEEDED"
    assert _job_view(sandbox, "pretrain", NAMESPACE)["status"] == "Running"  # both fit the team's 16 GPUs

    reached = max(_steps(_log(sandbox, "pretrain", NAMESPACE), "step "))  # at least this far when preempted
    _scale(sandbox, "spike", 2)  # ends once the second replica serves, on the job's GPUs
    assert _endpoint(sandbox, "spike")["readyReplicas"] == 2
    preempted = _in(sandbox, "pretrain", NAMESPACE, "Queued")
    assert preempted["reason"] == "Preempted" and preempted["pods"] == [], preempted
    assert "due to prioritization in the ClusterQueue" in preempted["message"], preempted

    _scale(sandbox, "spike", 1)
    resumed = _in(sandbox, "pretrain", NAMESPACE, "Running")
    assert len(resumed["pods"]) == 1
    lines = _poll(  # the recreated pod's log starts with where training resumes
        lambda: _steps(v := _log(sandbox, "pretrain", NAMESPACE), "resuming from step ") and v, "the job resumed"
    )
    (start,) = _steps(lines, "resuming from step ")
    assert start % 3 == 0 and start >= reached - reached % 3 >= 3, (start, reached, lines)
    _delete_job(sandbox, "pretrain", NAMESPACE)
    with sandbox.client("operator") as c:
        gone = c.delete(f"/api/clusters/{NAME}/endpoints/spike")
    assert gone.status_code == 202, gone.text
    assert sandbox.wait_operation(gone.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


def _endpoint_gone(sandbox, name: str) -> bool:
    with sandbox.client("viewer") as c:
        return c.get(f"/api/clusters/{NAME}/endpoints/{name}").status_code == 404


def test_deleting_a_team_needs_its_name_and_removes_quota_and_queues(sandbox, cluster):
    path = f"/api/clusters/{NAME}/teams/research"
    with sandbox.client() as c:
        for dry_run in ("false", "true"):  # a dry run runs every check
            unconfirmed = c.delete(path, params={"dryRun": dry_run})
            assert unconfirmed.status_code == 422, unconfirmed.text
        planned = c.delete(path, params={"confirm": "research", "dryRun": "true"})
        assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
        assert [(s["action"], s["target"]) for s in planned.json()["steps"]] == [
            ("delete", planned.json()["target"])
        ] and "team research" in planned.json()["target"], planned.text
        assert [t["team"] for t in c.get(f"/api/clusters/{NAME}/teams").json()["items"]] == ["research"]
        deleted = c.delete(path, params={"confirm": "research"})
        again = c.delete(path, params={"confirm": "research"})
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True, deleted.text
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    assert "has no team research; nothing to delete" in again.json()["message"], again.text
    assert _get(sandbox, "/teams")["items"] == []
    _poll(lambda: _kueue(sandbox, "localqueues") == [] and NAMESPACE not in _namespaces(sandbox), "the queues removed")
    assert _kueue(sandbox, "clusterqueues") == []


P4D = "ml.p4d.24xlarge"  # eight A100 40GB GPUs: seven 1g.5gb partitions each
SMALL = {"image": "vllm/vllm-openai:v0.10.1", "gpus": 0, "acceleratorPartition": {"type": "mig-1g.5gb", "count": 1}}


def test_a_mig_group_serves_two_small_endpoints_on_partitions_of_one_gpu(sandbox, cluster):
    with sandbox.client() as c:
        added = c.post(
            f"/api/clusters/{NAME}/instance-groups",
            json={
                "group": "mig",
                "instanceType": P4D,
                "instanceCount": 1,
                "mig": {"mode": "single", "acceleratorPartitionType": "mig-1g.5gb"},
            },
        )
    assert added.status_code == 202, added.text
    done = sandbox.wait_operation(added.json()["operation"]["id"], timeout=120)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    # the node as NVIDIA's GPU Operator labels it with the mixed strategy: partitions, no whole GPUs
    (node,) = [
        n
        for n in k8s.CoreV1Api(sandbox.kube(NAME)).list_node().items
        if n.metadata.labels.get("sagemaker.amazonaws.com/instance-group-name") == "mig"
    ]
    labels = node.metadata.labels
    assert (labels["nvidia.com/mig.config"], labels["nvidia.com/mig.config.state"]) == ("all-1g.5gb", "success")
    assert (labels["nvidia.com/mig.strategy"], labels["nvidia.com/mig-1g.5gb.count"]) == ("mixed", "56")
    assert (node.status.allocatable["nvidia.com/mig-1g.5gb"], node.status.allocatable["nvidia.com/gpu"]) == ("56", "0")

    for name in ("small-a", "small-b"):  # one at a time: one writer per cluster
        body = {
            "endpoint": name,
            "kind": "container",
            "instanceType": P4D,
            "container": {"worker": {**SMALL, "args": ["--served-model-name", name]}},
        }
        with sandbox.client("operator") as c:
            deployed = c.post(f"/api/clusters/{NAME}/endpoints", json=body)
        assert deployed.status_code == 202, deployed.text
        done = sandbox.wait_operation(deployed.json()["operation"]["id"], timeout=90)
        assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    pods = {name: _endpoint(sandbox, name)["pods"] for name in ("small-a", "small-b")}
    assert {p["kubernetesNode"] for ps in pods.values() for p in ps} == {node.metadata.name}, pods

    # what the node's kubelet says each pod holds: one partition each, two partitions of the same GPU
    with sandbox.client() as c:
        held = _poll(
            lambda: (
                len(
                    (
                        r := c.get("/api/sandbox/pod-resources", params={"cluster": NAME, "node": node.metadata.name})
                    ).json()["podResources"]
                )
                == 2
                and r.json()["podResources"]
            ),
            "the kubelet's devices for both pods",
        )
    devices = {
        pod["name"]: d["deviceIds"] for pod in held for container in pod["containers"] for d in container["devices"]
    }
    assert sorted(devices) == sorted(p["name"] for ps in pods.values() for p in ps), held
    ids = [i for found in devices.values() for i in found]
    assert all(len(found) == 1 for found in devices.values()) and len(set(ids)) == 2, devices
    assert len({i.split("/")[0] for i in ids}) == 1, devices  # MIG-GPU-<uuid>/<gpu instance>/<compute instance>

    for name in ("small-a", "small-b"):  # each answers through the OpenAI path, as its own model
        with sandbox.client("operator") as c:
            answer = c.post(
                f"/api/clusters/{NAME}/endpoints/{name}/openai/v1/chat/completions",
                json={"model": name, "messages": [{"role": "user", "content": f"hello {name}"}], "max_tokens": 16},
            )
        assert answer.status_code == 200, answer.text
        assert answer.json()["model"] == name and answer.json()["choices"][0]["message"]["content"], answer.text
