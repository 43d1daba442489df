"""Managed features, and task governance: the cluster policy and the teams' compute quotas."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef
from launchpod.contracts.common import Role
from launchpod.contracts.features import FeatureListView, UpdateFeaturesInput
from launchpod.contracts.operations import (
    OperationAcceptedView,
)
from launchpod.contracts.task_governance import (
    DeleteTeamInput,
    DeleteTeamView,
    GovernancePolicyInput,
    GovernancePolicyView,
    PolicyAppliedView,
    TeamAppliedView,
    TeamInput,
    TeamListView,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_features",
        "GET",
        "/api/clusters/{name}/features",
        "List the cluster's managed features (training operator, managed tiered checkpointing): each one's real"
        " state, version, the AWS and Kubernetes objects behind it, what it depends on and what blocks it.",
        ClusterRef,
        FeatureListView,
        Role.VIEWER,
        tags=("features",),
    ),
    CatalogEntry(
        "update_features",
        "PATCH",
        "/api/clusters/{name}/features",
        "Turn managed features on or off; send only the features that change. The backend compares them with the"
        " real cluster: NOOP when nothing differs, and dryRun true answers the plan (each step with its reason)"
        " without starting anything. Enabling the training operator installs cert-manager first when missing;"
        " disabling removes only what Launchpod created.",
        UpdateFeaturesInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("configure-features",),
        query=("dryRun",),
        tags=("features",),
    ),
    CatalogEntry(
        "get_governance_policy",
        "GET",
        "/api/clusters/{name}/task-governance/policy",
        "Get the cluster's task governance policy (its SageMaker cluster scheduler config): the priority classes"
        " with their weights, whether fair share is on, and the Kueue WorkloadPriorityClasses (<name>-priority)"
        " the add-on made from them. configured false when the cluster has none yet.",
        ClusterRef,
        GovernancePolicyView,
        Role.VIEWER,
        tags=("features",),
    ),
    CatalogEntry(
        "set_governance_policy",
        "PUT",
        "/api/clusters/{name}/task-governance/policy",
        "Set the cluster's task governance policy: priority classes (name, weight 0-100) and fair share; what is"
        " sent replaces the policy (a cluster has one). Compared with the real scheduler config first: NOOP when"
        " equal, dryRun true answers the plan. Needs the taskGovernance feature ACTIVE (409 otherwise). A SageMaker"
        " call, effective at once: jobs then name a class as priority.",
        GovernancePolicyInput,
        PolicyAppliedView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("features",),
    ),
    CatalogEntry(
        "list_teams",
        "GET",
        "/api/clusters/{name}/teams",
        "List the cluster's task governance teams (one SageMaker compute quota each): instance counts, sharing"
        " strategy (Lend, DontLend, LendAndBorrow), borrow limit, preemption, fair-share weight, and the team's"
        " namespace hyperpod-ns-<team> and LocalQueue hyperpod-ns-<team>-localqueue that jobs are submitted to.",
        ClusterRef,
        TeamListView,
        Role.VIEWER,
        tags=("features",),
    ),
    CatalogEntry(
        "put_team",
        "PUT",
        "/api/clusters/{name}/teams/{team}",
        "Create or change a team's compute quota: instance type counts (types of the cluster's instance groups, at"
        " most what they hold), sharing, borrowLimit (LendAndBorrow only), preemptTeamTasks, fairShareWeight. What"
        " is sent replaces the quota; compared with the real one first: NOOP when equal, dryRun true answers the"
        " plan. Needs the taskGovernance feature ACTIVE (409 otherwise). A SageMaker call, effective at once; the"
        " add-on then makes the team's namespace and queues.",
        TeamInput,
        TeamAppliedView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("features",),
    ),
    CatalogEntry(
        "delete_team",
        "DELETE",
        "/api/clusters/{name}/teams/{team}",
        "Delete a team's compute quota (only one Launchpod created), effective at once; the add-on removes the"
        " team's queues. Give the team's name again as confirm. NOOP when the team has no quota (already"
        " deleted); dryRun true answers the plan.",
        DeleteTeamInput,
        DeleteTeamView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("features",),
    ),
)
