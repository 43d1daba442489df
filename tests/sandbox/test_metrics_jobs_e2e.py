"""GPU metrics of the shared jobs cluster through the API, from the HyperPod observability add-on's workspace
(without it: tests/usecases/test_metrics.py): a job's GPU utilisation rises while it trains and falls
after it ends; the node it ran on reports memory and power; a node nothing ran on shows as idle with its
instance type's hourly price; and the feature can create its Amazon Managed Grafana workspace (refused with
IAM Identity Center's absence for AWS_SSO, made with SAML) and deletes it when turned off."""

from __future__ import annotations

import json
import time

import pytest
from launchpod.domain.metrics.prices import USD_PER_HOUR

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit
from tests.sandbox.metrics_support import ADDON, metrics, observability_on, series

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _job_utilization(sandbox, job: str, since: float) -> list[tuple[float, float]]:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/jobs/{job}/metrics", params={"minutes": 3, "step": 1, "points": "true"})
    if response.status_code == 404 and "no pods of job" in response.text:
        return []  # submitted, its pods not on a node yet (the answer says so until they are)
    assert response.status_code == 200, response.text
    view = response.json()
    rows = series(view, "gpuUtilization")
    return sorted((t, v) for s in rows for t, v in s["points"] if t >= since)


def test_a_jobs_gpu_utilisation_rises_while_it_trains_and_falls_after(sandbox, cluster):
    observability_on(sandbox, NAME)
    started = time.time()
    assert submit(sandbox, custom_job("gpu-metrics")).status_code == 200
    busy = wait_until(
        lambda: [v for _, v in _job_utilization(sandbox, "gpu-metrics", started) if v > 50],
        timeout=60,
        interval=0.5,
        reason="the job's GPUs busy",
    )
    assert max(busy) <= 100

    def status() -> str:
        with sandbox.client("viewer") as c:
            return str(c.get(f"/api/clusters/{NAME}/jobs/gpu-metrics").json()["status"])

    wait_until(lambda: status() in ("Succeeded", "Failed"), timeout=120, interval=0.5, reason="the job ended")
    assert status() == "Succeeded"
    points = wait_until(
        lambda: (found := _job_utilization(sandbox, "gpu-metrics", started)) and found[-1][1] < 1 and found,
        timeout=30,
        interval=0.5,
        reason="the job's GPUs idle again",
    )
    first_busy = next(t for t, v in points if v > 50)
    assert any(v < 1 for t, v in points if t > first_busy), points  # it rose, then fell

    view = metrics(sandbox, NAME, "/jobs/gpu-metrics/metrics", minutes=3, step=1)
    (node,) = {s["labels"]["Hostname"] for s in series(view, "gpuUtilization")}
    assert all(s["points"] is None for s in view["series"])  # numbers only, unless points=true
    node_id = node.removeprefix("hyperpod-")
    detail = metrics(sandbox, NAME, f"/nodes/{node_id}/metrics", minutes=3, step=1)
    memory, power = series(detail, "gpuMemoryUsed")[0]["summary"], series(detail, "gpuPower")[0]["summary"]
    assert memory["max"] > memory["last"] == 0  # held while it trained, freed after
    assert power["max"] > power["last"] > 0  # a GPU draws its idle power
    assert series(detail, "xidErrors")[0]["summary"]["max"] == 0


def test_a_node_nothing_runs_on_shows_as_idle_with_its_cost(sandbox, cluster):
    observability_on(sandbox, NAME)
    with sandbox.client("viewer") as c:
        nodes = c.get(f"/api/clusters/{NAME}/nodes").json()["items"]

    def idle_nodes() -> list[dict]:
        return metrics(sandbox, NAME, "/idle-capacity", thresholdMinutes=0)["nodes"]

    idle = wait_until(idle_nodes, timeout=30, interval=0.5, reason="an idle GPU node")
    known = {n["nodeId"] for n in nodes}
    for node in idle:
        assert node["nodeId"] in known and node["instanceType"] == "ml.p5.48xlarge", node
        assert node["gpus"] == 8 and node["usdPerHour"] == USD_PER_HOUR["ml.p5.48xlarge"], node
    view = metrics(sandbox, NAME, "/idle-capacity", thresholdMinutes=0)
    assert view["idleGpus"] == 8 * len(view["nodes"])
    assert view["usdPerHour"] == pytest.approx(USD_PER_HOUR["ml.p5.48xlarge"] * len(view["nodes"]))
    # a day-long threshold: nothing here has idled that long
    day = metrics(sandbox, NAME, "/idle-capacity", thresholdMinutes=1440)
    assert day["nodes"] == [] and "1440 minutes" in day["message"]
    gpu = metrics(sandbox, NAME, "/metrics/gpu", minutes=2, step=2)
    (group,) = series(gpu, "gpuUtilization")
    assert group["labels"] == {"instanceGroup": "gpu"}
    assert series(gpu, "idleGpus")[0]["summary"]["last"] >= 8


def _observability(sandbox, body: dict) -> dict:
    with sandbox.client() as c:
        response = c.patch(f"/api/clusters/{NAME}/features", json={"hyperpodObservability": body})
    assert response.status_code == 202, response.text
    return sandbox.wait_operation(response.json()["operation"]["id"], timeout=180)


def _feature(sandbox) -> dict:
    with sandbox.client("viewer") as c:
        items = c.get(f"/api/clusters/{NAME}/features").json()["items"]
    return next(f for f in items if f["name"] == "hyperpodObservability")


def test_the_feature_creates_its_grafana_workspace_when_asked_and_deletes_it_when_turned_off(sandbox, cluster):
    grafana, name = sandbox.aws("grafana"), f"launchpod-{NAME}-grafana"
    observability_on(sandbox, NAME)
    try:
        assert _observability(sandbox, {"enabled": False})["status"] == "SUCCEEDED"
        sso = {"enabled": True, "createGrafanaWorkspace": True, "grafanaAuthentication": "AWS_SSO"}
        failed = _observability(sandbox, sso)
        assert failed["status"] == "FAILED" and "IAM Identity Center is not enabled" in failed["message"], failed
        assert "use SAML" in failed["message"]

        done = _observability(sandbox, {"enabled": True, "createGrafanaWorkspace": True})
        assert done["status"] == "SUCCEEDED", done
        (workspace,) = [w for w in grafana.list_workspaces()["workspaces"] if w.get("name") == name]
        assert workspace["status"] == "ACTIVE" and workspace["authentication"]["providers"] == ["SAML"]
        feature = _feature(sandbox)
        objects = {(o["kind"], o["state"]) for o in feature["objects"]}
        assert ("Amazon Managed Grafana workspace", "ACTIVE") in objects
        assert feature["settings"]["grafanaUrl"].startswith(f"https://{workspace['id']}.grafana-workspace.")
        assert feature["settings"]["grafanaSignIn"].startswith("SAML (not configured")
        addon = sandbox.aws("eks").describe_addon(clusterName=NAME, addonName=ADDON)["addon"]
        given = json.loads(addon["configurationValues"])["amgWorkspace"]
        assert given["arn"].endswith(f"/workspaces/{workspace['id']}")

        assert _observability(sandbox, {"enabled": False})["status"] == "SUCCEEDED"
        left = [w["status"] for w in grafana.list_workspaces()["workspaces"] if w.get("name") == name]
        assert left in ([], ["DELETING"])
        roles = sandbox.aws("iam").list_roles()["Roles"]
        assert name not in {r["RoleName"] for r in roles}
    finally:
        observability_on(sandbox, NAME)  # as the module's other tests expect it
