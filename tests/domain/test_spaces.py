"""The Workspace Launchpod applies for a Space: valid against the operator's CRD, the shared bucket at the
jobs' path, and its status read from the operator's conditions."""

from __future__ import annotations

from launchpod.contracts.spaces import CreateSpaceInput
from launchpod.domain import spaces
from launchpod.domain.jobs.recipes import MOUNT

from tests.manifests import errors


def _request(**extra) -> CreateSpaceInput:
    return CreateSpaceInput(name="c1", spaceName="alice-nb", **extra)


def test_a_gpu_code_editor_space_with_the_bucket_validates_against_the_workspace_crd():
    made = spaces.workspace(
        _request(ide="code-editor", gpus=1, instanceGroup="gpu", storageClaim="shared", idleTimeoutMinutes=30),
        "alice",
    )
    assert errors(made) == []
    spec = made["spec"]
    assert spec["volumes"] == [{"name": "shared-data", "mountPath": MOUNT, "persistentVolumeClaimName": "shared"}]
    assert spec["templateRef"] == {"name": "sagemaker-code-editor-template", "namespace": "jupyter-k8s-system"}
    assert spec["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert spec["idleShutdown"]["idleTimeoutInMinutes"] == 30
    assert made["metadata"]["annotations"] == {spaces.OWNER_ANNOTATION: "alice"}


def test_a_cpu_space_without_idle_shutdown_asks_for_no_gpu_and_never_stops_by_itself():
    made = spaces.workspace(_request(idleTimeoutMinutes=None), "bob")
    assert errors(made) == []
    assert "idleShutdown" not in made["spec"] and "limits" not in made["spec"]["resources"]
    assert spaces.view("c1", made).status == "Starting"


def _with(conditions: dict[str, str], desired: str = "Running") -> dict:
    made = spaces.workspace(_request(storageClaim="shared"), "alice")
    made["spec"]["desiredStatus"] = desired
    made["status"] = {
        "serviceName": "workspace-alice-nb-service",
        "conditions": [{"type": t, "status": s, "message": f"{t} {s}"} for t, s in conditions.items()],
    }
    return made


def test_status_follows_the_operators_conditions_and_a_running_space_says_how_to_open_it():
    running = spaces.view("c1", _with({"Available": "True", "Progressing": "False", "Stopped": "False"}))
    assert (running.status, running.dataPath) == ("Running", MOUNT)
    assert running.connect == "kubectl port-forward -n default service/workspace-alice-nb-service 8888:8888"
    stopping = spaces.view("c1", _with({"Available": "False", "Progressing": "True"}, desired="Stopped"))
    assert (stopping.status, stopping.connect) == ("Stopping", None)
    assert spaces.view("c1", _with({"Stopped": "True"}, desired="Stopped")).status == "Stopped"
    degraded = spaces.view("c1", _with({"Degraded": "True", "Available": "False"}))
    assert (degraded.status, degraded.message) == ("Degraded", "Degraded True")


def test_stopping_sends_the_whole_spec_again_with_the_new_status():
    made = spaces.workspace(_request(storageClaim="shared"), "alice")
    stopped = spaces.with_desired_status(made, "Stopped")
    assert stopped["spec"] == {**made["spec"], "desiredStatus": "Stopped"}
    assert errors(stopped) == []
