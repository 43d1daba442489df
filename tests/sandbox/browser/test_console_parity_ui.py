"""The console's actions that used to need curl, in headless Chromium against the real sandbox: import and
delete a cluster, run a provisioning phase again, the three diagnoses (findings, and next steps with where
to do them and a command to copy), delete a job, download a model, update the nodes' software, run health
checks, set up MLflow, edit the governance policy and delete a team. Every mutating dialog shows the API's
dry-run plan before anything is sent, and each action is followed to what it changed."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.sandbox.browser.conftest import App, as_role
from tests.sandbox.browser.test_web_ui import choose
from tests.sandbox.clusters import their_eks_cluster
from tests.sandbox.jobs_support import MODEL, custom_job, ready_cluster, submit

pytestmark = pytest.mark.browser
FAILED = "ui-parity"  # a cluster whose HyperPod creation failed for capacity, then recovered, then deleted
THEIRS = "ui-theirs"  # an EKS cluster made outside Launchpod
GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}
TEAM = {
    "resources": [{"instanceType": "ml.g5.8xlarge", "instanceCount": 1}],
    "sharing": "LendAndBorrow",
    "borrowLimit": 50,
    "fairShareWeight": 10,
}


@pytest.fixture(scope="module")
def jobs(sandbox) -> str:
    return ready_cluster(sandbox)


@pytest.fixture(scope="module")
def failed(sandbox) -> str:
    """A cluster whose HyperPod creation failed with AWS's capacity error (the sandbox's fault fires once)."""
    with sandbox.client() as c:
        body = {"name": FAILED, "availabilityZones": ["us-east-1a", "us-east-1b"]}
        assert sandbox.wait_operation(c.post("/api/clusters", json=body).json()["operation"]["id"])["status"] == (
            "SUCCEEDED"
        )
        sandbox.install_dependencies(FAILED)
        sandbox.faults(failNextHyperPodCreate="capacity")
        asked = c.post(
            f"/api/clusters/{FAILED}/hyperpod", json={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}
        )
    assert sandbox.wait_operation(asked.json()["operation"]["id"])["status"] == "FAILED"
    return FAILED


def plan_in(dialog: Locator, label: str) -> Locator:
    """The dry run's steps in ``dialog``: a list named ``label`` with at least one step."""
    steps = dialog.get_by_role("list", name=label)
    expect(steps.get_by_role("listitem").first).to_be_visible()
    return steps


def followed(app: App, page: Page) -> dict:
    """The operation the page moved to, followed to its end."""
    expect(page).to_have_url(re.compile(r"/operations/op-"))
    return app.wait_operation(page.url.rsplit("/", 1)[-1])


def succeeded_after_plan(app: App, page: Page, dialog: Locator, shot, *, plan: str, press: str, step: str) -> dict:
    """The dialog's dry run (a list named ``plan``) shown (screenshot ``step``), then ``press`` pressed: the
    operation it started, followed to its end, SUCCEEDED."""
    plan_in(dialog, plan)
    shot(page, step)
    dialog.get_by_role("button", name=press, exact=True).click()
    done = followed(app, page)
    assert done["status"] == "SUCCEEDED", done
    return done


def action(page: Page, item: str) -> None:
    page.get_by_role("button", name="Actions").click()
    page.get_by_role("menuitem", name=item).click()


def deleted_by_name(app: App, page: Page, item: str, name: str, planned: str | None, shot, step: str) -> dict:
    """``item`` from the cluster's Actions: its dry run shown (``planned`` in it), the button held until ``name``
    is typed back, then the operation followed to its end."""
    action(page, item)
    dialog = page.get_by_role("dialog")
    plan = plan_in(dialog, "What the delete does")
    if planned:
        expect(plan).to_contain_text(planned)
    delete = dialog.get_by_role("button", name=item)
    expect(delete).to_be_disabled()  # until the name is typed back
    dialog.get_by_label("Name to confirm").fill(name)
    shot(page, step)
    delete.click()
    return followed(app, page)


def test_an_eks_cluster_is_imported_and_deleted_from_the_console(app: App, sandbox, page: Page, shot) -> None:
    their_eks_cluster(sandbox, THEIRS, network="10.78")
    eks = sandbox.aws("eks")

    as_role(app, page).goto(f"{app.url}/clusters")
    page.get_by_role("button", name="Import cluster").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("EKS cluster name").fill(THEIRS)
    done = succeeded_after_plan(
        app, page, dialog, shot, plan="What the import does", press="Import", step="import-plan"
    )
    assert app.api("GET", f"/clusters/{THEIRS}", role="viewer").json()["source"] == "imported"

    page.goto(f"{app.url}/clusters/{THEIRS}")
    done = deleted_by_name(app, page, "Delete cluster", THEIRS, None, shot, "delete-imported-plan")
    assert done["status"] == "SUCCEEDED", done
    control = next(p for p in done["phases"] if p["name"] == "DeleteControlPlane")
    assert control["status"] == "SKIPPED" and "not created by Launchpod" in control["message"]
    assert eks.describe_cluster(name=THEIRS)["cluster"]["status"] == "ACTIVE"  # not Launchpod's to delete


def test_the_creation_diagnosis_names_capacity_and_offers_the_retry_as_a_command(
    app: App, failed: str, page: Page, shot
) -> None:
    as_role(app, page, "viewer").goto(f"{app.url}/clusters/{failed}")  # on the Overview, under its status
    page.get_by_role("button", name="Diagnose creation").click()
    expect(page.get_by_text("Likely cause", exact=True)).to_be_visible()
    findings = page.get_by_role("list", name="Findings").first
    expect(findings).to_contain_text("Problem:")
    expect(findings).to_contain_text("ml.g5.8xlarge")
    expect(page.get_by_text("In the console: Operation: Retry from failed phase")).to_be_visible()
    commands = page.locator(".launchpod-command")
    # first: the cluster asked again in a zone that has the type (the path names it, the body does not)
    elsewhere = commands.first
    expect(elsewhere).to_contain_text(f'curl -X POST "{app.url}/api/clusters/{failed}/hyperpod" ')
    expect(elsewhere).to_contain_text('"availabilityZone":"us-east-1b"')
    expect(elsewhere).not_to_contain_text('"cluster"')
    retry = commands.filter(has_text="/retry").first
    # the command reaches this console's API, with the token from the environment, never a pasted one
    expect(retry).to_contain_text(re.compile(rf'curl -X POST "{re.escape(app.url)}/api/operations/op-\w+/retry" '))
    expect(retry).to_contain_text('-H "Authorization: Bearer $LAUNCHPOD_TOKEN"')
    expect(retry.get_by_role("button", name="Copy command")).to_be_visible()
    shot(page, "creation-diagnosis", full_page=True)


def test_a_provisioning_phase_runs_again_from_the_cluster_actions(app: App, failed: str, page: Page, shot) -> None:
    as_role(app, page).goto(f"{app.url}/clusters/{failed}")
    action(page, "Run a provisioning phase again")
    dialog = page.get_by_role("dialog")
    choose(page, "Phase", "HyperPod cluster")
    succeeded_after_plan(
        app, page, dialog, shot, plan="What it would do", press="Run HyperPod cluster", step="run-phase-plan"
    )
    assert app.api("GET", f"/clusters/{failed}", role="viewer").json()["hyperpod"]["status"] == "InService"


def test_the_nodes_software_is_updated_after_its_plan(app: App, failed: str, page: Page, shot) -> None:
    as_role(app, page).goto(f"{app.url}/clusters/{failed}?tab=instance-groups")
    page.get_by_role("button", name="Update software").click()
    dialog = page.get_by_role("dialog")
    done = succeeded_after_plan(
        app, page, dialog, shot, plan="What the update does", press="Start update", step="software-update-plan"
    )
    assert done["kind"] == "update-software"


def test_health_checks_run_on_the_selected_node_after_their_plan(app: App, failed: str, page: Page, shot) -> None:
    node = app.api("GET", f"/clusters/{failed}/nodes", role="viewer").json()["items"][0]["nodeId"]
    as_role(app, page).goto(f"{app.url}/clusters/{failed}?tab=nodes")
    page.get_by_role("checkbox", name=node).check()
    page.get_by_role("button", name="Run health checks").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(node)
    done = succeeded_after_plan(
        app, page, dialog, shot, plan="What the health checks do", press="Run health checks", step="health-checks-plan"
    )
    assert done["request"]["targets"] == [{"instanceGroup": "gpu", "nodeIds": [node]}]


def test_the_node_diagnosis_shows_findings(app: App, failed: str, page: Page, shot) -> None:
    node = app.api("GET", f"/clusters/{failed}/nodes", role="viewer").json()["items"][0]["nodeId"]
    as_role(app, page, "viewer").goto(f"{app.url}/clusters/{failed}?tab=nodes")
    page.get_by_role("checkbox", name=node).check()
    page.get_by_role("button", name="Diagnose node").click()
    expect(page.get_by_role("heading", name="Node diagnosis")).to_be_visible()
    expect(page.get_by_role("list", name="Findings").first.get_by_role("listitem").first).to_be_visible()
    shot(page, "node-diagnosis", full_page=True)


def test_mlflow_is_set_up_from_the_features_tab(app: App, failed: str, page: Page, shot) -> None:
    as_role(app, page, "operator").goto(f"{app.url}/clusters/{failed}?tab=features")
    expect(page.get_by_text("No tracking server yet")).to_be_visible()
    page.get_by_role("button", name="Set up MLflow").click()
    dialog = page.get_by_role("dialog")
    succeeded_after_plan(app, page, dialog, shot, plan="What it does", press="Set up", step="mlflow-plan")
    page.goto(f"{app.url}/clusters/{failed}?tab=features")
    expect(page.get_by_role("button", name="Open MLflow")).to_be_enabled()
    expect(page.get_by_text(f"launchpod-{failed}-mlflow")).to_be_visible()
    shot(page, "mlflow-created", full_page=True)


def test_the_governance_policy_is_edited_and_a_team_deleted(app: App, failed: str, page: Page, shot) -> None:
    on = app.api("PATCH", f"/clusters/{failed}/features", json={"taskGovernance": {"enabled": True}})
    assert on.status_code == 202, on.text
    assert app.wait_operation(on.json()["operation"]["id"])["status"] == "SUCCEEDED"
    team = app.api("PUT", f"/clusters/{failed}/teams/research", json=TEAM)
    assert team.status_code == 200, team.text

    as_role(app, page).goto(f"{app.url}/clusters/{failed}?tab=features")
    page.get_by_role("button", name="Edit policy").click()
    dialog = page.get_by_role("dialog")
    plan_in(dialog, "What saving changes")
    shot(page, "policy-plan")
    dialog.get_by_role("button", name="Save policy").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_text("inference (100), training (50)")).to_be_visible()
    policy = app.api("GET", f"/clusters/{failed}/task-governance/policy", role="viewer").json()
    assert sorted((p["name"], p["weight"]) for p in policy["priorityClasses"]) == [("inference", 100), ("training", 50)]

    page.get_by_role("button", name="Delete team research").click()
    dialog = page.get_by_role("dialog")
    plan_in(dialog, "What the delete does")
    dialog.get_by_label("Team name to confirm").fill("research")
    shot(page, "team-delete-plan")
    dialog.get_by_role("button", name="Delete team").click()
    expect(page.get_by_role("button", name="Delete team research")).to_have_count(0)
    assert app.api("GET", f"/clusters/{failed}/teams", role="viewer").json()["items"] == []


def test_the_hyperpod_cluster_alone_is_deleted_from_the_cluster_actions(
    app: App, failed: str, sandbox, page: Page, shot
) -> None:
    as_role(app, page).goto(f"{app.url}/clusters/{failed}")
    planned = f"HyperPod cluster {failed} (InService)"
    done = deleted_by_name(app, page, "Delete HyperPod cluster", failed, planned, shot, "delete-hyperpod-plan")
    assert done["status"] == "SUCCEEDED" and done["kind"] == "delete-hyperpod", done
    assert app.api("GET", f"/clusters/{failed}", role="viewer").json()["eks"]["status"] == "ACTIVE"
    assert failed not in [c["ClusterName"] for c in sandbox.aws("sagemaker").list_clusters()["ClusterSummaries"]]


def test_a_launchpod_cluster_is_deleted_from_the_console(app: App, failed: str, sandbox, page: Page, shot) -> None:
    as_role(app, page).goto(f"{app.url}/clusters/{failed}")
    planned = f"EKS cluster {failed} (ACTIVE)"  # its HyperPod cluster was deleted before
    done = deleted_by_name(app, page, "Delete cluster", failed, planned, shot, "delete-cluster-plan")
    assert done["status"] == "SUCCEEDED", done
    assert app.api("GET", f"/clusters/{failed}", role="viewer").status_code == 404
    assert not [c for c in sandbox.aws("eks").list_clusters()["clusters"] if c == failed]


def test_a_job_is_deleted_from_its_detail_after_its_plan(app: App, jobs: str, sandbox, page: Page, shot) -> None:
    assert submit(sandbox, custom_job("ui-doomed")).status_code == 200
    as_role(app, page, "operator").goto(f"{app.url}/clusters/{jobs}?tab=jobs")
    page.get_by_role("button", name="ui-doomed").click()
    expect(page.get_by_role("heading", name="ui-doomed")).to_be_visible()
    page.get_by_role("button", name="Delete", exact=True).click()
    dialog = page.get_by_role("dialog")
    plan_in(dialog, "What the delete does")
    shot(page, "delete-job-plan")
    dialog.get_by_role("button", name="Delete job").click()
    expect(page.get_by_text("Deleted job ui-doomed")).to_be_visible()
    expect(page.get_by_role("button", name="ui-doomed")).to_have_count(0)
    assert app.api("GET", f"/clusters/{jobs}/jobs/ui-doomed", role="viewer").status_code == 404


def test_the_nccl_diagnosis_reads_a_jobs_pods(app: App, jobs: str, sandbox, page: Page, shot) -> None:
    assert submit(sandbox, custom_job("ui-nccl", replicas=2)).status_code == 200
    as_role(app, page, "viewer").goto(f"{app.url}/clusters/{jobs}?tab=jobs")
    page.get_by_role("button", name="ui-nccl").click()
    page.get_by_role("button", name="Diagnose communication").click()
    expect(page.get_by_role("heading", name="Communication diagnosis")).to_be_visible()
    expect(page.get_by_role("list", name="Findings").first.get_by_role("listitem").first).to_be_visible()
    shot(page, "nccl-diagnosis", full_page=True)
    app.api("DELETE", f"/clusters/{jobs}/jobs/ui-nccl", role="operator", params={"confirm": "ui-nccl"})


def test_a_model_is_downloaded_from_the_models_table(app: App, jobs: str, page: Page, shot) -> None:
    listed = [m["repoId"] for m in app.api("GET", f"/clusters/{jobs}/models", role="viewer").json()["items"]]
    as_role(app, page, "operator").goto(f"{app.url}/clusters/{jobs}?tab=storage")
    page.get_by_role("button", name="Download model").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Hugging Face repository").fill(MODEL)
    if MODEL in listed:  # another test of the group downloaded it first: the plan says there is nothing to do
        expect(dialog).to_contain_text("already")
        return
    succeeded_after_plan(app, page, dialog, shot, plan="What the download does", press="Download", step="download-plan")
    page.goto(f"{app.url}/clusters/{jobs}?tab=storage")
    expect(page.get_by_test_id("models-table")).to_contain_text(MODEL)
    shot(page, "model-listed", full_page=True)


def test_every_new_dialog_is_refused_to_a_viewer(app: App, jobs: str, page: Page) -> None:
    as_role(app, page, "viewer").goto(f"{app.url}/clusters/{jobs}")
    expect(page.get_by_role("button", name="Actions")).to_be_disabled()
    page.goto(f"{app.url}/clusters/{jobs}?tab=storage")
    expect(page.get_by_role("button", name="Download model")).to_be_disabled()
