"""The Features and Storage tabs in headless Chromium against the real sandbox: a toggle previews its plan,
applies only what changed and shows the feature on; storage is listed, browsed, added and deleted."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.aws.support import wait_until
from tests.sandbox.browser.conftest import App, as_role, operation_succeeded
from tests.sandbox.browser.selects import add_group_dialog, pick
from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.browser
BUCKET = "sagemaker-launchpod-123456789012-us-east-1"


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    return App(sandbox.url, dict(sandbox.tokens))


@pytest.fixture(scope="module")
def provisioned(real: App, sandbox) -> str:
    """A whole cluster (HyperPod with one node, the shared bucket's datasets prefix as storage)."""
    name = f"ui-feat-{secrets.token_hex(3)}"
    body = {
        **cluster_body(name, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}),
        "storage": {"kind": "s3", "storageName": "datasets", "prefix": f"{name}/datasets"},
    }
    created = real.api("POST", "/clusters/provision", json=body)
    assert created.status_code == 202, created.text
    assert real.wait_operation(created.json()["operation"]["id"])["status"] == "SUCCEEDED"
    s3 = sandbox.aws("s3")
    s3.put_object(Bucket=BUCKET, Key=f"{name}/datasets/mnist/train.csv", Body=b"a,b\n")
    s3.put_object(Bucket=BUCKET, Key=f"{name}/datasets/readme.txt", Body=b"hello")
    return name


@pytest.fixture
def admin_page(real: App, page: Page) -> Page:
    return as_role(real, page)


def test_features_tab_previews_the_plan_and_turns_tiered_checkpointing_on(
    real: App, admin_page: Page, provisioned: str, shot, axe
) -> None:
    page = admin_page
    page.goto(f"{real.url}/clusters/{provisioned}?tab=features")
    card = page.get_by_test_id("feature-tieredCheckpointing")
    expect(page.get_by_role("heading", name="HyperPod training operator")).to_be_visible()
    expect(page.get_by_role("button", name="Apply changes")).to_be_disabled()
    shot(page, "before", full_page=True)

    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.post_data or "") if r.method == "PATCH" else None)
    page.get_by_label("Managed tiered checkpointing on or off").check()
    expect(page.get_by_label("Memory for checkpoints (%)")).to_have_value("20")
    page.get_by_role("button", name="Preview plan").click()
    plan = page.get_by_role("table").filter(has_text="Why")
    expect(plan.get_by_role("row")).to_have_count(4)  # the header and three steps
    expect(plan).to_contain_text("ServiceAccount default/launchpod-checkpoints")
    expect(plan).to_contain_text("HyperPod TieredStorageConfig")
    shot(page, "plan", full_page=True)
    assert axe(page) == []
    assert sent == ['{"tieredCheckpointing":{"enabled":true,"memoryPercentage":20}}']  # only what changed

    page.get_by_role("button", name="Apply changes").click()
    operation_succeeded(page)
    page.goto(f"{real.url}/clusters/{provisioned}?tab=features")
    expect(page.get_by_label("Managed tiered checkpointing on or off")).to_be_checked()
    expect(card).to_contain_text("ServiceAccount default/launchpod-checkpoints: annotated")
    expect(card).to_contain_text("Enabled")
    shot(page, "after", full_page=True)


def test_storage_tab_lists_browses_adds_and_deletes(real: App, admin_page: Page, provisioned: str, shot, axe) -> None:
    page = admin_page
    page.goto(f"{real.url}/clusters/{provisioned}?tab=storage")
    storage = page.get_by_test_id("storage-table")  # the models table below also has rows naming storages
    row = storage.get_by_role("row").filter(has_text="datasets")
    expect(row).to_contain_text("Bound")
    row.get_by_role("button", name="Browse").click()
    browser = page.get_by_test_id("storage-browser")
    expect(browser.get_by_role("heading", name="Browse datasets")).to_be_visible()
    expect(browser).to_contain_text("readme.txt")
    browser.get_by_role("button", name="mnist/").click()
    expect(browser).to_contain_text("mnist/train.csv")
    shot(page, "browse", full_page=True)
    assert axe(page) == []

    page.get_by_label("Storage name").fill("models")
    page.get_by_label("Prefix (optional)").fill(f"{provisioned}/models")
    page.get_by_role("button", name="Add storage").click()
    operation_succeeded(page)

    page.goto(f"{real.url}/clusters/{provisioned}?tab=storage")
    models = storage.get_by_role("row").filter(has_text="models")
    expect(models).to_contain_text("Bound")
    models.get_by_role("button", name="Delete models").click()
    dialog = page.get_by_role("dialog")
    plan = dialog.get_by_role("list", name="What the delete does")  # the API's dry run, before anything changes
    expect(plan).to_contain_text("delete PersistentVolumeClaim default/models")
    expect(plan).to_contain_text("delete PersistentVolume models")
    expect(models).to_contain_text("Bound")
    shot(page, "delete-plan")
    dialog.get_by_role("button", name="Delete").click()
    expect(storage.get_by_role("row").filter(has_text="models")).to_have_count(0)
    expect(storage.get_by_role("row").filter(has_text="datasets")).to_have_count(1)
    shot(page, "deleted", full_page=True)


def test_storage_tab_lists_the_downloaded_models(
    real: App, admin_page: Page, provisioned: str, sandbox, shot, axe
) -> None:
    s3 = sandbox.aws("s3")
    base = f"{provisioned}/datasets/models/Qwen/Qwen3-0.6B"
    s3.put_object(Bucket=BUCKET, Key=f"{base}/config.json", Body=b"{}")
    s3.put_object(Bucket=BUCKET, Key=f"{base}/model.safetensors", Body=b"x" * 2048)
    page = admin_page
    page.goto(f"{real.url}/clusters/{provisioned}?tab=storage")
    models = page.get_by_test_id("models-table")
    expect(models.get_by_role("heading", name="Models")).to_be_visible()
    row = models.get_by_role("row").filter(has_text="Qwen/Qwen3-0.6B")
    expect(row).to_contain_text("datasets")
    expect(row).to_contain_text(f"s3://{BUCKET}/{base}/")
    expect(row).to_contain_text("2.0 KiB")
    expect(row.get_by_role("cell").nth(2)).to_have_text("2")  # files: the marker and the weights
    shot(page, "models", full_page=True)
    assert axe(page) == []


def test_task_governance_teams_are_listed_previewed_and_saved(
    real: App, admin_page: Page, provisioned: str, shot, axe
) -> None:
    on = real.api("PATCH", f"/clusters/{provisioned}/features", json={"taskGovernance": {"enabled": True}})
    assert on.status_code == 202, on.text
    assert real.wait_operation(on.json()["operation"]["id"])["status"] == "SUCCEEDED"
    page = admin_page
    page.goto(f"{real.url}/clusters/{provisioned}?tab=features")
    card = page.get_by_test_id("feature-taskGovernance")
    expect(card).to_contain_text("No teams yet")
    card.get_by_label("Team name").fill("research")
    card.get_by_role("button", name="Preview team").click()
    expect(card).to_contain_text("Plan: create compute quota")
    assert real.api("GET", f"/clusters/{provisioned}/teams").json()["items"] == []  # the preview made nothing
    card.get_by_role("button", name="Save team").click()
    row = card.get_by_role("row").filter(has_text="research")
    expect(row).to_contain_text("1 x ml.p5.48xlarge")
    queue = row.get_by_test_id("team-queue-research")
    expect(queue).to_contain_text("hyperpod-ns-research-localqueue")
    expect(queue).to_contain_text("in hyperpod-ns-research")
    shot(page, "teams", full_page=True)
    assert axe(page) == []
    (team,) = real.api("GET", f"/clusters/{provisioned}/teams").json()["items"]
    assert (team["team"], team["sharing"], team["borrowLimit"]) == ("research", "LendAndBorrow", 50)


def test_the_teams_page_pictures_each_teams_share_and_gives_one_accelerators(
    real: App, admin_page: Page, provisioned: str, shot, axe
) -> None:
    """After the Features tab's team: the Teams page shows the policy, the teams and their shares as a chart,
    and gives a second team 4 GPUs (SageMaker fills its vCPUs and memory by ratio: half the node)."""
    page = admin_page
    page.goto(f"{real.url}/teams?cluster={provisioned}")
    expect(page.get_by_role("heading", name="Teams", exact=True).first).to_be_visible()
    expect(page.get_by_text("Unallocated compute")).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="research")).to_contain_text("1 / 0 / 0 instances")
    page.get_by_label("Team name").fill("vision")
    page.get_by_role("button", name="What to give").click()
    pick(page, page.get_by_role("option", name="Accelerators (GPUs)"))
    page.get_by_label("Amount").fill("4")
    page.get_by_role("button", name="Save team").click()
    row = page.get_by_role("row").filter(has_text="vision")
    expect(row).to_contain_text("4 accelerators of ml.p5.48xlarge")
    expect(row).to_contain_text("0.5 / 0 / 0 instances")
    # the Queue column is read whole: its names fit their cell, and the row's Delete is on screen, not behind
    # a horizontal scroll
    queue = row.get_by_test_id("team-queue-vision")
    expect(queue).to_contain_text("hyperpod-ns-vision-localqueue")
    assert queue.evaluate("e => e.closest('td').scrollWidth <= e.closest('td').clientWidth")
    for name in page.get_by_test_id("queue-name").all():  # one line each: not split at a hyphen
        assert name.evaluate("e => e.getClientRects().length") == 1, name.inner_text()
    assert queue.evaluate("e => { const w = e.closest('table').parentElement; return w.scrollWidth <= w.clientWidth }")
    expect(row.get_by_role("button", name="Delete team vision")).to_be_in_viewport()
    expect(
        page.get_by_role("img", name="Quota, use and borrowing per team")
        .or_(page.get_by_label("Quota, use and borrowing per team"))
        .first
    ).to_be_visible()
    shot(page, "teams-page", full_page=True)
    assert axe(page) == []
    vision = next(t for t in real.api("GET", f"/clusters/{provisioned}/teams").json()["items"] if t["team"] == "vision")
    assert [(g["accelerators"], g["vCpu"], g["memoryInGiB"]) for g in vision["guaranteed"]] == [(4, 96, 1024)]


P4D = "ml.p4d.24xlarge"  # eight A100 40GB GPUs, seven mig-1g.5gb each


def _select(page: Page, scope, label: str, option: str) -> None:
    """Open the Cloudscape select labelled ``label`` in ``scope`` and pick the option whose text starts so."""
    scope.get_by_role("button", name=re.compile(f"^{re.escape(label)}")).click()
    pick(page, page.get_by_role("option", name=re.compile(f"^{re.escape(option)}")).first)


def test_a_mig_group_from_the_wizard_and_an_endpoint_on_its_partitions_in_a_teams_queue(
    real: App, admin_page: Page, provisioned: str, sandbox, shot, axe
) -> None:
    """The add-group wizard offers the layouts the type's GPU takes, the edit dialog shows the group's and plans
    a change; the deploy form offers that group's partition profile, the cluster's teams and priority classes,
    and the endpoint it sends runs on a partition in the team's queue."""
    governance = real.api("PATCH", f"/clusters/{provisioned}/features", json={"taskGovernance": {"enabled": True}})
    if governance.status_code == 202:  # on already when the module's teams tests ran first
        assert real.wait_operation(governance.json()["operation"]["id"])["status"] == "SUCCEEDED"
    page = admin_page
    tab = f"{real.url}/clusters/{provisioned}?tab=instance-groups"
    page.goto(tab)
    dialog = add_group_dialog(page, "mig", P4D)
    dialog.get_by_role("button", name=re.compile("^GPU partitions")).click()
    layouts = page.get_by_role("option")
    expect(layouts.filter(has_text="Every GPU as mig-1g.5gb")).to_contain_text("7 per GPU, 56 per node")
    expect(layouts.filter(has_text="Mix: ")).to_have_count(11)  # the mixes HyperPod ships for the A100 40GB
    shot(page, "mig-layouts")
    pick(page, layouts.filter(has_text="Every GPU as mig-1g.5gb"))
    for _ in range(4):
        dialog.get_by_role("button", name="Next").click()
    expect(dialog).to_contain_text("Every GPU as mig-1g.5gb")
    shot(page, "mig-review")
    dialog.get_by_role("button", name="Add group").click()
    operation_succeeded(page)
    groups = real.api("GET", f"/clusters/{provisioned}/instance-groups").json()["items"]
    group = next(g for g in groups if g["instanceGroup"] == "mig")
    assert (group["mig"]["config"], group["mig"]["perNode"]) == ("all-1g.5gb", {"mig-1g.5gb": 56}), group

    # the edit dialog shows the group's layout and the dry run of another one
    page.goto(tab)
    page.get_by_role("radio", name="mig").check()
    page.get_by_role("button", name="Edit", exact=True).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("button", name=re.compile("^GPU partitions"))).to_contain_text("Every GPU as mig-1g.5gb")
    _select(page, dialog, "GPU partitions", "Every GPU as mig-3g.20gb")
    expect(dialog.get_by_text("What the change does")).to_be_visible()
    shot(page, "mig-edit-plan")
    dialog.get_by_role("button", name="Cancel").click()

    # a team with partitions of the group, and the policy's priority classes, for the deploy form to offer
    policy = {"priorityClasses": [{"name": "inference", "weight": 90}, {"name": "training", "weight": 50}]}
    made = real.api("PUT", f"/clusters/{provisioned}/task-governance/policy", json=policy)
    assert made.status_code == 200, made.text
    serving = {"resources": [{"instanceType": P4D, "acceleratorPartition": {"type": "mig-1g.5gb", "count": 14}}]}
    made = real.api("PUT", f"/clusters/{provisioned}/teams/serving", json=serving)
    assert made.status_code == 200, made.text
    wait_until(
        lambda: (
            len(real.api("GET", f"/clusters/{provisioned}/task-governance/policy").json()["workloadPriorityClasses"])
            == 2
        ),
        reason="the policy's WorkloadPriorityClasses",
    )
    page.goto(f"{real.url}/clusters/{provisioned}?tab=inference")
    page.get_by_label("Endpoint name").fill("small")
    _select(page, page, "Instance type", P4D)
    _select(page, page, "GPU partition", "mig-1g.5gb")
    expect(page.get_by_label("GPUs per replica")).to_have_count(0)  # partitions instead of GPUs
    _select(page, page, "Team", "serving")
    _select(page, page, "Priority", "inference-priority")
    shot(page, "deploy-on-partitions", full_page=True)
    assert axe(page) == []
    sent: list[dict] = []
    page.on(
        "request", lambda r: sent.append(r.post_data_json) if r.method == "POST" and "/endpoints" in r.url else None
    )
    page.get_by_role("button", name="Deploy", exact=True).click()
    operation_succeeded(page)
    (body,) = sent
    assert body["container"]["worker"]["acceleratorPartition"] == {"type": "mig-1g.5gb", "count": 1}, body
    assert (body["namespace"], body["queue"], body["priority"]) == (
        "hyperpod-ns-serving",
        "hyperpod-ns-serving-localqueue",
        "inference-priority",
    ), body
    view = real.api("GET", f"/clusters/{provisioned}/endpoints/small").json()
    assert view["readyReplicas"] == 1 and view["pods"][0]["kubernetesNode"], view
