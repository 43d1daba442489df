"""The playbooks: well-formed, versioned, and each keeps the rules every Launchpod playbook keeps."""

from __future__ import annotations

import re

import pytest
from launchpod.contracts.catalog_ops import TOOLS, entry

from mcp_gateway import skills
from mcp_gateway.tools import WAIT_TOOL
from mcp_gateway.toolsets import Toolsets

SKILLS = skills.load()
BY_NAME = {s.name: s for s in SKILLS}
CATALOG_TOOLS = {e.id for e in TOOLS} | {WAIT_TOOL}
MUTATING = {e.id for e in TOOLS if e.mutates}
# tools that change things; a diagnostic playbook may only suggest them
PLANNED_MUTATING = {
    "reboot_nodes",
    "replace_nodes",
    "submit_training_job",
    "deploy_model",
    "add_instance_group",
}
DIAGNOSTICS = [s for s in SKILLS if s.name.startswith("diagnose-")]


def test_every_playbook_the_issue_names_is_there() -> None:
    assert set(BY_NAME) == {
        "create-cluster",
        "add-instance-group",
        "managed-features",
        "submit-training-job",
        "deploy-model",
        "diagnose-node",
        "diagnose-nccl",
        "diagnose-cluster-creation",
        "share-cluster",
    }


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_playbook_is_versioned_and_named_after_its_file(skill: skills.Skill) -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", skill.version)
    assert (skills.SKILLS_DIR / f"{skill.name}.md").exists()
    assert skill.title and skill.description and skill.body.startswith("# ")


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_playbook_monitors_long_operations_to_a_terminal_state(skill: skills.Skill) -> None:
    text = " ".join(skill.body.split())
    assert "Monitor every long operation to a terminal state" in text and WAIT_TOOL in text


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_playbook_asks_only_decision_level_questions(skill: skills.Skill) -> None:
    text = " ".join(skill.body.split())
    assert "decision-level questions" in text
    assert re.search(r"[Nn]ever (ask )?about CIDRs, route tables[^.]*security groups", text)


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_playbook_inspects_before_creating(skill: skills.Skill) -> None:
    assert re.search(r"\*\*Inspect", skill.body), "each playbook starts from what exists"


def test_create_cluster_lists_clusters_and_queries_zones_and_types_before_creating() -> None:
    body = BY_NAME["create-cluster"].body
    create_at = body.index("Call `provision_cluster`")
    for read in ("`list_clusters`", "`list_availability_zones`", "`list_instance_types`"):
        assert body.index(read) < create_at, read


def test_create_cluster_provisions_in_one_operation_not_four() -> None:
    skill = BY_NAME["create-cluster"]
    steps = skill.body.split("## Steps", 1)[1]
    calls = re.findall(r"[Cc]all `(\w+)`", steps)
    assert "provision_cluster" in calls
    stages = {"create_cluster", "reconcile_dependencies", "create_hyperpod", "configure_storage"}
    assert stages.isdisjoint(calls) and stages.isdisjoint(skill.tools), "each stage would be an operation of its own"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_playbooks_call_the_cluster_cluster(skill: skills.Skill) -> None:
    assert all(a.name != "name" for a in skill.arguments)
    assert '{"name":' not in skill.body


@pytest.mark.parametrize("skill", DIAGNOSTICS, ids=lambda s: s.name)
def test_diagnostics_are_read_only_and_only_suggest_mutations(skill: skills.Skill) -> None:
    assert "read-only" in skill.body
    assert re.search(r"investigate → (reboot|retry) → (replace|recreate)", skill.body)
    for line in skill.body.splitlines():
        for tool in (MUTATING | PLANNED_MUTATING) & set(re.findall(r"`(\w+)`", line)):
            assert re.search(r"[Ss]uggest|approve|yes", line), f"{skill.name}: {tool} outside a suggestion: {line}"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_every_tool_a_playbook_names_is_declared_or_offered(skill: skills.Skill) -> None:
    named = {t for t in re.findall(r"`([a-z]+(?:_[a-z]+)+)`", skill.body)}
    undeclared = named - CATALOG_TOOLS - set(skill.tools)
    assert not undeclared, f"declare them in the front matter `tools:` line: {sorted(undeclared)}"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_every_tool_a_playbook_names_is_one_this_server_offers(skill: skills.Skill) -> None:
    """An agent following a playbook finds every tool it names on this server."""
    named = set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", skill.body)) | set(skill.tools)
    assert named - CATALOG_TOOLS == set()
    assert "Not offered" not in skill.render(None, CATALOG_TOOLS)


def test_karpenter_is_said_to_scale_hyperpod_groups_only_in_the_api_and_the_playbook() -> None:
    described = " ".join(next(e for e in TOOLS if e.id == "set_autoscaling").summary.split())
    assert "HyperPod instance groups only, not plain EC2 instances or EKS node groups" in described
    body = " ".join(BY_NAME["add-instance-group"].body.split())
    assert "HyperPod instance groups only, never plain EC2 instances or EKS node groups" in body


def test_render_heads_the_playbook_with_arguments_and_missing_tools() -> None:
    skill = BY_NAME["create-cluster"]
    text = skill.render({"cluster": "team-a", "instanceType": ""}, CATALOG_TOOLS)
    assert text.splitlines()[0] == f"<!-- launchpod skill create-cluster v{skill.version} -->"
    assert "Arguments given by the user: cluster=team-a." in text
    assert "Not offered" not in text  # every tool of the create-cluster pipeline exists now
    # A server without one of the playbook's tools (an older Launchpod) says so at the top.
    missing = sorted(skill.tools)[0]
    older = skill.render(None, CATALOG_TOOLS - {missing})
    head = older.split("\n\n", 1)[0]
    assert f"Not offered by this Launchpod server yet: {missing}." in head


def test_front_matter_is_required() -> None:
    with pytest.raises(ValueError):
        skills.parse("# no front matter")


def test_create_cluster_asks_for_nothing_create_hyperpod_cannot_take() -> None:
    body = BY_NAME["create-cluster"].body
    rule = " ".join(body.split("2. **Ask only decision-level questions**", 1)[1].split("3. **", 1)[0].split())
    request = entry("create_hyperpod").input
    group = request.model_fields["instanceGroups"].annotation.__args__[0]  # type: ignore[union-attr]
    takes = set(request.model_fields) | set(group.model_fields)
    asks_capacity = "capacity type" in rule.lower()
    assert not asks_capacity or {"capacityType", "trainingPlanArn"} & takes, rule
    # what it cannot take is routed to the tool that can
    assert "add_instance_group" in rule and "capacityType" in entry("add_instance_group").input.model_fields
    # AWS sets continuous provisioning only at creation, and autoscaling needs it: the playbook asks now
    assert "nodeProvisioningMode" in takes and "nodeProvisioningMode: Continuous" in " ".join(body.split())


@pytest.mark.parametrize("skill", SKILLS, ids=lambda s: s.name)
def test_getting_a_playbook_lists_every_tool_its_steps_call(skill: skills.Skill) -> None:
    """Getting the prompt enables the toolsets of its front matter's tools: no step names a tool still hidden
    (a sentence saying not to call one is no step)."""
    groups = Toolsets(TOOLS)
    steps = " ".join(s for s in re.split(r"(?<=\.)\s+", skill.body) if not s.startswith(("Do not", "Never")))
    named = set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", steps)) & groups.catalog
    hidden = named - groups.visible(groups.holding(skill.tools))
    assert not hidden, f"add them to the front matter `tools:` line: {sorted(hidden)}"
