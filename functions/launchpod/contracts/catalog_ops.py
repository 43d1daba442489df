"""The operation catalog: every REST operation, once.

The API routes, the role checks, the MCP tools and the web client all read this list, so a new
operation is added here and appears everywhere. ``input`` is the one model a caller fills: fields
named in the path template go in the path, the rest go in the query string (GET, DELETE) or the
JSON body (POST, PATCH, PUT).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, create_model

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.catalog import AvailabilityZoneListView, InstanceTypeListView
from launchpod.contracts.chat import ChatCompletionInput, ChatCompletionView, OpenAIModelListView
from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    CreateClusterRequest,
    DeleteClusterInput,
    DeleteHyperPodInput,
    ImportClusterRequest,
    ProvisionClusterRequest,
    RunPhaseInput,
)
from launchpod.contracts.common import AvailabilityZoneName, ClusterName, Contract, OperationId, Role
from launchpod.contracts.dependencies import DependencyListView, ReconcileDependenciesInput
from launchpod.contracts.features import FeatureListView, UpdateFeaturesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput, UpdateSoftwareInput
from launchpod.contracts.incidents import (
    DiagnoseCreationInput,
    DiagnoseNcclInput,
    DiagnosisView,
    IncidentListView,
    LadderPolicyInput,
    LadderPolicyView,
)
from launchpod.contracts.inference import (
    AssignPodInput,
    AssignPodView,
    CreateEndpointInput,
    EndpointListView,
    EndpointRef,
    EndpointView,
    InvokeEndpointInput,
    InvokeView,
    ScaleEndpointInput,
)
from launchpod.contracts.instance_groups import (
    AddInstanceGroupInput,
    DeleteInstanceGroupInput,
    InstanceGroupAcceptedView,
    InstanceGroupListView,
    UpdateInstanceGroupInput,
)
from launchpod.contracts.jobs import (
    DeleteJobInput,
    DeleteJobView,
    JobListView,
    JobLogsInput,
    JobLogsView,
    JobRef,
    JobView,
    ListJobsInput,
    SubmitJobInput,
)
from launchpod.contracts.mlflow import ConfigureMlflowInput, MlflowRef, MlflowView
from launchpod.contracts.models import DownloadModelInput, ModelListView
from launchpod.contracts.nodes import (
    ClusterEventListView,
    DestructiveNodeActionInput,
    HealthCheckInput,
    ListEventsInput,
    NodeActionInput,
    NodeDetailView,
    NodeListView,
    NodeRef,
)
from launchpod.contracts.notifications import (
    NotificationSettingsView,
    NotificationTestInput,
    NotificationTestView,
    RemovedSubscriberView,
    SubscriberInput,
    SubscriberRef,
)
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationStatus,
    OperationView,
)
from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest
from launchpod.contracts.storage import (
    BrowseStorageInput,
    ConfigureStorageInput,
    DeleteStorageView,
    StorageListView,
    StorageObjectListView,
    StorageRef,
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
from launchpod.contracts.training_plans import (
    BuyTrainingPlanRequest,
    ExtendTrainingPlanInput,
    ExtensionOfferingListView,
    ListTrainingPlansInput,
    OfferingListView,
    OfferingQuery,
    TrainingPlanListView,
    TrainingPlanRef,
    TrainingPlanView,
)


class NoInput(Contract):
    """This operation takes no input."""


class ClusterRef(Contract):
    name: ClusterName


class OperationRef(Contract):
    operationId: OperationId


class CancelOperationInput(CancelOperationRequest):
    operationId: OperationId


class ListOperationsInput(Contract):
    cluster: ClusterName | None = Field(default=None, description="only operations on this cluster")
    status: OperationStatus | None = None
    limit: int = Field(default=50, ge=1, le=200)
    nextToken: str | None = Field(default=None, max_length=2048, description="the nextToken of the previous page")


class ListClustersInput(Contract):
    limit: int = Field(default=50, ge=1, le=200)
    nextToken: str | None = Field(default=None, max_length=2048, description="the nextToken of the previous page")


class InstanceTypesInput(Contract):
    zone: AvailabilityZoneName | None = Field(default=None, description="only types offered in this zone")


class DryRun(Contract):
    dryRun: bool = Field(default=False, description="answer the plan (each step with its reason) and start nothing")


def _with_dry_run(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` plus dryRun, under the same name and words (an MCP tool's input schema is this model's)."""
    if "dryRun" in model.model_fields:
        return model
    made = create_model(model.__name__, __base__=(model, DryRun), __module__=model.__module__)
    made.__doc__ = model.__doc__
    return made


# The inputs of the mutating routes the planner answers: the request plus dryRun (sent in the query).
class CreateClusterInput(CreateClusterRequest, DryRun):
    """Create the EKS control plane for a HyperPod cluster."""


class ProvisionClusterInput(ProvisionClusterRequest, DryRun):
    """Everything in one request: control plane, dependencies, HyperPod and, optionally, storage."""


class ImportClusterInput(ImportClusterRequest, DryRun):
    """Bring an existing EKS cluster under Launchpod."""


class DeleteClusterCall(DeleteClusterInput, DryRun):
    """Delete a cluster and everything Launchpod created for it; type its name back to confirm."""


class DeleteHyperPodCall(DeleteHyperPodInput, DryRun):
    """Delete only the cluster's HyperPod cluster; type the cluster's name back to confirm."""


class CreateHyperPodCall(CreateHyperPodInput, DryRun):
    """Create the HyperPod cluster of an existing Launchpod cluster."""


class ReconcileDependenciesCall(ReconcileDependenciesInput, DryRun):
    """Install or update the pinned dependencies."""


class UpdateSoftwareCall(UpdateSoftwareInput, DryRun):
    """Patch the nodes' software in rolling batches."""


class ConfigureStorageCall(ConfigureStorageInput, DryRun):
    """Expose storage to pods as a PersistentVolumeClaim."""


class HealthView(Contract):
    status: str = "ok"
    version: str


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    method: str
    path: str
    summary: str
    input: type[BaseModel]
    response: type[BaseModel]
    role: Role | None  # None: no token needed (health only)
    mutates: bool = False
    destructive: bool = False
    idempotent: bool = True
    tags: tuple[str, ...] = ()
    accepted: bool = field(default=False)  # answers 202 with an operation
    immediate: bool = field(default=False)  # a write that is complete when the call returns (no operation)
    # The operation kinds (workflows) this route starts; retrying or cancelling one needs this route's role.
    starts: tuple[str, ...] = ()
    # Input fields sent in the query string even on a body method (dryRun on PATCH/POST).
    query: tuple[str, ...] = ()
    # False: no MCP tool for this route (the OpenAI-compatible routes: OpenAI SDKs call them, agents call
    # invoke_endpoint); REST, the OpenAPI document and the console's types still have it.
    tool: bool = True
    # True when the route's own code reads dryRun (it is in ``query`` as written). Every other mutating
    # route gets dryRun declared here all the same, and the API's dry-run middleware answers it
    # (routing._dry_run): a workflow stops where it would start and answers its plan.
    own_plan: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "own_plan", "dryRun" in self.query)
        if self.mutates and not self.accepted and not self.own_plan:
            # the dry-run middleware can only stop a workflow before it starts; a write done at once plans itself
            raise ValueError(f"{self.id} writes at once: its route must read dryRun and answer the plan itself")
        if self.mutates:
            object.__setattr__(self, "input", _with_dry_run(self.input))
        if self.mutates and not self.own_plan:
            object.__setattr__(self, "query", (*self.query, "dryRun"))

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def status_tool(self) -> str | None:
        return "get_operation" if self.accepted else None

    @property
    def description(self) -> str:
        text = self.summary
        if self.accepted:
            text += (
                " Answers with an operation; the work is done only when get_operation reports"
                " SUCCEEDED (or FAILED/CANCELLED). Use wait_for_operation to follow it."
            )
        return text


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("health", "GET", "/api/health", "Liveness of the API.", NoInput, HealthView, None, tags=("meta",)),
    CatalogEntry(
        "list_availability_zones",
        "GET",
        "/api/catalog/availability-zones",
        "List the region's availability zones with their zone ids.",
        NoInput,
        AvailabilityZoneListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "list_instance_types",
        "GET",
        "/api/catalog/instance-types",
        "List HyperPod instance types and the zones that offer each.",
        InstanceTypesInput,
        InstanceTypeListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "search_training_plan_offerings",
        "GET",
        "/api/training-plans/offerings",
        "Search training plan offerings (reserved GPU/Trainium capacity for HyperPod): instance type, count,"
        " duration in whole days, earliest start, latest end. Each offering has its upfront price, zone, start"
        " and end; best match first. Read-only: buying is buy_training_plan.",
        OfferingQuery,
        OfferingListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "buy_training_plan",
        "POST",
        "/api/training-plans",
        "Buy a training plan from an offering of the same search: this spends money (the offering's upfront fee)"
        " and cannot be cancelled. confirmPrice must equal the offering's upfrontFee; dryRun true shows the price"
        " and buys nothing. The same name and offering again answers the plan bought (NOOP).",
        BuyTrainingPlanRequest,
        TrainingPlanView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("capacity",),
    ),
    CatalogEntry(
        "list_training_plans",
        "GET",
        "/api/training-plans",
        "List the account's training plans with state (Pending, Scheduled, Active, Expired, Failed), start, end,"
        " instances total/in use/available and which cluster's instance groups use them.",
        ListTrainingPlansInput,
        TrainingPlanListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "get_training_plan",
        "GET",
        "/api/training-plans/{plan}",
        "Describe one training plan: state, window, price, instances in use and by which cluster and group.",
        TrainingPlanRef,
        TrainingPlanView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "search_training_plan_extensions",
        "GET",
        "/api/training-plans/{plan}/extension-offerings",
        "Search the extension offerings of an Active or Scheduled plan: each adds days after its end, in its"
        " zone, for an upfront fee. Read-only: extending is extend_training_plan.",
        TrainingPlanRef,
        ExtensionOfferingListView,
        Role.VIEWER,
        tags=("capacity",),
    ),
    CatalogEntry(
        "extend_training_plan",
        "POST",
        "/api/training-plans/{plan}/extensions",
        "Extend a training plan by one of its extension offerings: this spends money and cannot be undone."
        " confirmPrice must equal the offering's upfrontFee; dryRun true shows the price and buys nothing. An"
        " offering already used for this plan answers NOOP.",
        ExtendTrainingPlanInput,
        TrainingPlanView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("capacity",),
    ),
    CatalogEntry(
        "list_clusters",
        "GET",
        "/api/clusters",
        "List clusters by name with EKS and HyperPod status read from AWS, a page at a time (nextToken).",
        ListClustersInput,
        ClusterListView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "get_cluster",
        "GET",
        "/api/clusters/{name}",
        "Get one cluster with EKS and HyperPod status read from AWS.",
        ClusterRef,
        ClusterView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "create_cluster",
        "POST",
        "/api/clusters",
        "Create the EKS control plane of a new cluster: network, IAM role, EKS, OIDC, access entry, core add-ons.",
        CreateClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-control-plane",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "provision_cluster",
        "POST",
        "/api/clusters/provision",
        "Create a whole cluster in one operation: EKS control plane, pinned dependencies and the HyperPod cluster"
        " (node auto-recovery on), as child executions; a failed one resumes where it stopped on retry.",
        ProvisionClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("provision-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "run_cluster_phase",
        "POST",
        "/api/clusters/{name}/phases/{phase}",
        "Run one provisioning phase of a cluster again on its own: control-plane, dependencies, hyperpod or"
        " storage, with the settings recorded for the cluster (its last provision_cluster, or the last run of that"
        " phase's own tool). Each step of the phase checks the real state first and skips what is already done.",
        RunPhaseInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-control-plane", "reconcile-dependencies", "create-hyperpod", "configure-storage"),
        tags=("clusters",),
    ),
    # ---- nodes, events and node actions (issue 16)
    CatalogEntry(
        "list_nodes",
        "GET",
        "/api/clusters/{name}/nodes",
        "List the cluster's HyperPod nodes joined with their Kubernetes Nodes: group, instance type, zone, capacity"
        " type, instance status, Ready, the health agent's labels and taints, GPUs allocatable and allocated, pods.",
        ClusterRef,
        NodeListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "get_node",
        "GET",
        "/api/clusters/{name}/nodes/{nodeId}",
        "Get one node: DescribeClusterNode with its Kubernetes conditions, health labels, taints, events and pods.",
        NodeRef,
        NodeDetailView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "list_cluster_events",
        "GET",
        "/api/clusters/{name}/events",
        "List the HyperPod cluster's events (ListClusterEvents), newest first, by instance group, node, level,"
        " resource type and time, each with DescribeClusterEvent's details (the failure message events omit).",
        ListEventsInput,
        ClusterEventListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "reboot_nodes",
        "POST",
        "/api/clusters/{name}/nodes/reboot",
        "Reboot nodes (BatchRebootClusterNodes, 25 per call) and follow each until it is Running again; nodes AWS"
        " refuses or that come back failed are reported one by one. Workloads on them are interrupted.",
        NodeActionInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        idempotent=False,
        accepted=True,
        starts=("reboot-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "replace_nodes",
        "POST",
        "/api/clusters/{name}/nodes/replace",
        "Replace nodes with new hardware (BatchReplaceClusterNodes, 25 per call) and follow each replacement until"
        " it is Running. DATA LOSS: every local volume of the nodes (root and secondary) is destroyed; back up"
        " first and send acknowledgeDataLoss: true. Try reboot_nodes first.",
        DestructiveNodeActionInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        idempotent=False,
        accepted=True,
        starts=("replace-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "delete_nodes",
        "POST",
        "/api/clusters/{name}/nodes/delete",
        "Delete nodes from the cluster (BatchDeleteClusterNodes; the groups shrink) and follow each until it is"
        " gone. DATA LOSS: every local volume of the nodes is destroyed; send acknowledgeDataLoss: true.",
        DestructiveNodeActionInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        idempotent=False,
        accepted=True,
        starts=("delete-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "start_health_check",
        "POST",
        "/api/clusters/{name}/health-checks",
        "Run deep health checks on demand (StartClusterHealthCheck) on instance groups or nodes and follow each"
        " node to passed or failed. The nodes stop taking work meanwhile, and HyperPod reboots or replaces the"
        " ones that fail (replacement loses local volumes), so this needs admin.",
        HealthCheckInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        idempotent=False,
        accepted=True,
        starts=("health-check",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "list_incidents",
        "GET",
        "/api/clusters/{name}/incidents",
        "List the cluster's node incidents, newest first: HyperPod's health events folded per node (duplicates"
        " counted, not repeated), the remediation ladder's state and steps (investigate, reboot, replace) and the"
        " suggested next step as a tool call. Also says the ladder's policy.",
        ClusterRef,
        IncidentListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "list_notification_subscribers",
        "GET",
        "/api/clusters/{name}/notifications",
        "List who is told about the cluster: e-mail and chat-webhook subscribers, the kinds each gets (operation"
        " failed, incident opened, ladder stopped, job failed, endpoint unhealthy, plan expiring) and whether an"
        " e-mail address has confirmed.",
        ClusterRef,
        NotificationSettingsView,
        Role.VIEWER,
        tags=("notifications",),
    ),
    CatalogEntry(
        "add_notification_subscriber",
        "POST",
        "/api/clusters/{name}/notifications/subscribers",
        "Tell an e-mail address (SNS sends it a confirmation link first) or a Slack- or Teams-compatible webhook"
        " about the cluster, for the kinds given (all when omitted). NOOP when it already gets exactly those;"
        " dryRun true answers the plan.",
        SubscriberInput,
        NotificationSettingsView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
    CatalogEntry(
        "remove_notification_subscriber",
        "DELETE",
        "/api/clusters/{name}/notifications/subscribers/{subscriberId}",
        "Stop telling a subscriber about the cluster (its SNS subscription is removed). NOOP when it is gone;"
        " dryRun true answers the plan.",
        SubscriberRef,
        RemovedSubscriberView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
    CatalogEntry(
        "send_test_notification",
        "POST",
        "/api/clusters/{name}/notifications/test",
        "Send a test message to every subscriber of the cluster, with a link to its console page, to check"
        " that e-mails and webhooks arrive. dryRun true answers the plan.",
        NotificationTestInput,
        NotificationTestView,
        Role.ADMIN,
        mutates=True,
        idempotent=False,
        immediate=True,
        query=("dryRun",),
        tags=("notifications",),
    ),
    CatalogEntry(
        "set_ladder_policy",
        "PUT",
        "/api/clusters/{name}/ladder-policy",
        "Set the remediation ladder's policy for the cluster: off (incidents only), suggest (default: record the"
        " next command for a person or agent) or auto (run it as an operation: reboot once, then replace)."
        " A setting, effective at once (from the next health event on); it changes nothing in AWS. NOOP when the"
        " cluster already has that policy; dryRun true answers the plan.",
        LadderPolicyInput,
        LadderPolicyView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "diagnose_node",
        "GET",
        "/api/clusters/{name}/nodes/{nodeId}/diagnosis",
        "Diagnose one node, read-only: HyperPod status, Kubernetes conditions, the health agent's labels and taints,"
        " HyperPod and Kubernetes events, its incident and the ladder's next step. Suggests commands, runs none.",
        NodeRef,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
    CatalogEntry(
        "diagnose_cluster_creation",
        "GET",
        "/api/clusters/{name}/diagnosis/creation",
        "Diagnose a cluster's creation, read-only: HyperPod's failure message and likely cause, failed operations"
        " and their phase, Error events with details, the lifecycle scripts' log location, and where the instance"
        " types are offered. Suggests the next step, runs none.",
        DiagnoseCreationInput,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
    CatalogEntry(
        "diagnose_nccl",
        "GET",
        "/api/clusters/{name}/diagnosis/nccl",
        "Diagnose NCCL for a job's pods, read-only: their nodes' spread over zones, EFA present and requested,"
        " FI_PROVIDER and NCCL_* environment, NCCL errors in their logs, nodes with earlier incidents. The job's"
        " pods are found by Launchpod's job label, else by their job-name label or name prefix.",
        DiagnoseNcclInput,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
    CatalogEntry(
        "import_cluster",
        "POST",
        "/api/clusters/import",
        "Import an existing EKS cluster (API or API_AND_CONFIG_MAP authentication): give Launchpod's role an access"
        " entry, check it reaches the Kubernetes API, and record the cluster as imported.",
        ImportClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("import-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "delete_cluster",
        "DELETE",
        "/api/clusters/{name}",
        "Delete a cluster and everything Launchpod created for it (HyperPod, EKS, its MLflow tracking server"
        " with the runs on it, roles, network, scripts); anything it did not create, such as a tracking server"
        " you picked or the artifacts in the shared bucket, is left in place. Give the name again as confirm.",
        DeleteClusterCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("delete-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "delete_hyperpod",
        "DELETE",
        "/api/clusters/{name}/hyperpod",
        "Delete only the HyperPod cluster Launchpod created, and wait until it is gone; the EKS control plane,"
        " its add-ons and storage stay. Use it to give up a failed HyperPod cluster (to create it again with"
        " create_hyperpod later) or to stop paying for its nodes. Give the cluster's name again as confirm.",
        DeleteHyperPodCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("delete-hyperpod",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "create_hyperpod",
        "POST",
        "/api/clusters/{name}/hyperpod",
        "Create the HyperPod cluster on an ACTIVE control plane: lifecycle scripts, execution role, /20 compute"
        " subnet, EFA security group, access entry, CreateCluster with node auto-recovery, wait until InService.",
        CreateHyperPodCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-hyperpod",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "update_software",
        "POST",
        "/api/clusters/{name}/software-update",
        "Patch the HyperPod nodes' software in rolling batches (UpdateClusterSoftware) and wait until InService.",
        UpdateSoftwareCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("update-software",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    # --- instance groups (issue 12) ---
    CatalogEntry(
        "list_instance_groups",
        "GET",
        "/api/clusters/{name}/instance-groups",
        "List the HyperPod cluster's instance groups: instance type, current/target/min counts, status, capacity"
        " type, NIC mode, zone and subnet, training plan, deep health checks, image version, Karpenter management.",
        ClusterRef,
        InstanceGroupListView,
        Role.VIEWER,
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "add_instance_group",
        "POST",
        "/api/clusters/{name}/instance-groups",
        "Add one instance group to the HyperPod cluster (UpdateCluster; the other groups keep every field):"
        " instance type, count (0 allowed), zone or a dedicated /20 subnet, capacity onDemand, spot or"
        " trainingPlan (the plan's zone wins), EFA-only interfaces, threads per core, EBS size, deep health"
        " checks, labels and taints. Checks first that the zone offers the type and the quota allows it.",
        AddInstanceGroupInput,
        InstanceGroupAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "update_instance_group",
        "PATCH",
        "/api/clusters/{name}/instance-groups/{group}",
        "Change an instance group: send only what changed (instance count, labels, taints, deep health checks,"
        " scheduled update). Answers NOOP when nothing differs. Capacity type, NIC mode, instance type and subnet"
        " are fixed for the life of a group: add a new group to change them.",
        UpdateInstanceGroupInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "delete_instance_group",
        "DELETE",
        "/api/clusters/{name}/instance-groups/{group}",
        "Delete an instance group and terminate its nodes (and its dedicated subnet, if Launchpod made one)."
        " Give the group's name again as confirm.",
        DeleteInstanceGroupInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "set_autoscaling",
        "PUT",
        "/api/clusters/{name}/autoscaling",
        "Enable or disable HyperPod-managed Karpenter for instance groups: enable makes the cluster role, turns on"
        " AutoScaling (Karpenter), waits until InService, then applies a HyperpodNodeClass (at most 10 groups; each"
        " starts at 0) and a NodePool; disable removes them in reverse. It scales HyperPod instance groups only, not"
        " plain EC2 instances or EKS node groups. Enabling needs a cluster created with continuous provisioning, a"
        " group outside autoscaling with a node for system pods, no group on a training plan or with deep health"
        " checks, and each group with nodes named in confirmScaleToZero. Answers NOOP when nothing changes.",
        AutoscalingInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("autoscaling",),
        tags=("instance-groups",),
    ),
    # --- end instance groups ---
    CatalogEntry(
        "list_dependencies",
        "GET",
        "/api/clusters/{name}/dependencies",
        "List the cluster's dependencies: required or optional, pinned vs installed version, drift.",
        ClusterRef,
        DependencyListView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "reconcile_dependencies",
        "POST",
        "/api/clusters/{name}/dependencies",
        "Install or update the pinned dependencies (EKS add-ons and Kubernetes manifests), each to ACTIVE or ready.",
        ReconcileDependenciesCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("reconcile-dependencies",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "configure_storage",
        "POST",
        "/api/clusters/{name}/storage",
        "Expose storage to pods as a PersistentVolumeClaim: the shared S3 bucket (or a prefix of it) through"
        " Mountpoint for S3, or an existing FSx for Lustre file system. Needs the dependencies installed.",
        ConfigureStorageCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("configure-storage",),
        query=("dryRun",),
        tags=("storage",),
    ),
    CatalogEntry(
        "list_storage",
        "GET",
        "/api/clusters/{name}/storage",
        "List the storage Launchpod configured on the cluster: claim, namespace, kind, source, Bound or Pending.",
        ClusterRef,
        StorageListView,
        Role.VIEWER,
        tags=("storage",),
    ),
    CatalogEntry(
        "delete_storage",
        "DELETE",
        "/api/clusters/{name}/storage/{storageName}",
        "Remove a storage's PersistentVolumeClaim and PersistentVolume (only ones Launchpod created), effective"
        " at once; the data in S3 or FSx is kept. NOOP when the storage is already gone; dryRun true answers the"
        " plan.",
        StorageRef,
        DeleteStorageView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("storage",),
    ),
    CatalogEntry(
        "browse_storage",
        "GET",
        "/api/clusters/{name}/storage/{storageName}/objects",
        "List objects and folders under a prefix of an S3 storage, at most 1000 per page (continuationToken pages on).",
        BrowseStorageInput,
        StorageObjectListView,
        Role.VIEWER,
        tags=("storage",),
    ),
    # ---- managed features (issue 13)
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
    # ---- task governance: the cluster policy and the teams' compute quotas (issue 13)
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
    CatalogEntry(
        "get_me",
        "GET",
        "/api/me",
        "Who you are to Launchpod: your user and the role (viewer, operator, admin) your groups give you.",
        NoInput,
        MeView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "get_preferences",
        "GET",
        "/api/preferences",
        "Get your preferences: the active cluster you and your agents work on by default.",
        NoInput,
        PreferencesView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "set_preferences",
        "PUT",
        "/api/preferences",
        "Set your active cluster (a preference, effective at once; it changes nothing in AWS). NOOP when it"
        " already is your active cluster; dryRun true answers the plan.",
        UpdatePreferencesRequest,
        PreferencesView,
        Role.VIEWER,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("preferences",),
    ),
    CatalogEntry(
        "list_operations",
        "GET",
        "/api/operations",
        "List operations, newest first, optionally by cluster and status, a page at a time (nextToken).",
        ListOperationsInput,
        OperationListView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "get_operation",
        "GET",
        "/api/operations/{operationId}",
        "Get an operation with every phase: status, times, attempts and errors. Decides completion.",
        OperationRef,
        OperationView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "retry_operation",
        "POST",
        "/api/operations/{operationId}/retry",
        "Resume a FAILED or CANCELLED operation from the phase that did not finish. Needs the role of the"
        " route that started it (admin for cluster operations).",
        OperationRef,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        tags=("operations",),
    ),
    CatalogEntry(
        "cancel_operation",
        "POST",
        "/api/operations/{operationId}/cancel",
        "Stop a running operation, effective at once: it is CANCELLED when the call returns. Resources already"
        " created are kept; retry resumes it. 409 when it has already ended. dryRun true answers what it would"
        " stop. Needs the role of the route that started it (admin for cluster operations).",
        CancelOperationInput,
        OperationView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("operations",),
    ),  # ---- inference (issue 15): endpoints
    CatalogEntry(
        "create_endpoint",
        "POST",
        "/api/clusters/{name}/endpoints",
        "Deploy an inference endpoint on a GPU instance group: kind managed (an InferenceEndpointConfig: a model"
        " folder of an S3 or FSx storage, worker image, KV cache, intelligent routing, autoscaling), jumpstart (a"
        " JumpStartModel) or container (any serving image as a Deployment and a Service, clusterIP or an NLB"
        " loadBalancer; GPUs exactly as given). managed and jumpstart need the inference operator feature.",
        CreateEndpointInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("inference",),
        query=("dryRun",),
        tags=("inference",),
    ),
    CatalogEntry(
        "list_endpoints",
        "GET",
        "/api/clusters/{name}/endpoints",
        "List the inference endpoints Launchpod deployed on the cluster: kind, status, replicas ready/desired, URL.",
        ClusterRef,
        EndpointListView,
        Role.VIEWER,
        tags=("inference",),
    ),
    CatalogEntry(
        "get_endpoint",
        "GET",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Get one endpoint: status, replicas ready/desired, URL (load balancer hostname or in-cluster DNS), its"
        " pods and the nodes they run on, and why a pod waits.",
        EndpointRef,
        EndpointView,
        Role.VIEWER,
        tags=("inference",),
    ),
    CatalogEntry(
        "scale_endpoint",
        "PATCH",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Set an endpoint's replicas; NOOP when it already has that many.",
        ScaleEndpointInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("inference",),
        tags=("inference",),
    ),
    CatalogEntry(
        "delete_endpoint",
        "DELETE",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Delete an endpoint Launchpod deployed (its custom resource, or its Deployment and Service).",
        EndpointRef,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("inference",),
        tags=("inference",),
    ),
    CatalogEntry(
        "invoke_endpoint",
        "POST",
        "/api/clusters/{name}/endpoints/{endpoint}/invoke",
        "Send an OpenAI-style chat completion to the endpoint (the API calls the endpoint's own Service; no URL"
        " or host is accepted) and return the answer, bounded to 20 s and 256 KiB: effective at once, no"
        " operation to follow. dryRun true checks the endpoint is Ready and answers the one step, sending nothing.",
        InvokeEndpointInput,
        InvokeView,
        Role.OPERATOR,
        mutates=True,  # not a change, but it spends the endpoint's GPU time: never auto-approved for agents
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tags=("inference",),
    ),
    CatalogEntry(
        "create_chat_completion",
        "POST",
        "/api/clusters/{name}/endpoints/{endpoint}/openai/v1/chat/completions",
        "OpenAI-compatible chat completion on the endpoint: OpenAI's request and answer (stream true answers"
        " server-sent events), so an OpenAI SDK with base_url .../endpoints/{endpoint}/openai/v1 and a Launchpod"
        " token as api_key works. Sent to the endpoint's own Service as invoke_endpoint is, with the same bounds."
        " Errors carry OpenAI's error object. Not an MCP tool: agents call invoke_endpoint.",
        ChatCompletionInput,
        ChatCompletionView,
        Role.OPERATOR,
        mutates=True,  # as invoke_endpoint: it spends the endpoint's GPU time
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tool=False,
        tags=("inference",),
    ),
    CatalogEntry(
        "list_endpoint_models",
        "GET",
        "/api/clusters/{name}/endpoints/{endpoint}/openai/v1/models",
        "OpenAI-compatible model list of the endpoint: the model its server serves (OpenAI SDKs' models.list()).",
        EndpointRef,
        OpenAIModelListView,
        Role.VIEWER,
        tool=False,
        tags=("inference",),
    ),
    CatalogEntry(
        "assign_pod",
        "POST",
        "/api/clusters/{name}/model-pools/{pool}/assign",
        "Reassign a warm worker pod of a model pool (a container endpoint with service modelPool) to another pool"
        " endpoint's Service by its binding label; the pod keeps running: effective at once, no operation to"
        " follow. NOOP when the pod already serves that endpoint; dryRun true answers the label change.",
        AssignPodInput,
        AssignPodView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("inference",),
    ),
    # ---- models (issue 15)
    CatalogEntry(
        "download_model",
        "POST",
        "/api/clusters/{name}/models/download",
        "Download a Hugging Face model (or dataset) by repo id and revision into an S3 storage under"
        " models/<repoId>/, by a CPU Kubernetes Job. hfToken (gated or private repositories) is kept in a"
        " Kubernetes Secret only, deleted when the Job ends; it is never returned or logged. No URL is accepted.",
        DownloadModelInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        idempotent=False,
        starts=("model-download",),
        tags=("models",),
    ),
    CatalogEntry(
        "list_models",
        "GET",
        "/api/clusters/{name}/models",
        "List the models present in the cluster's S3 storage under models/: repo id, path, files and size.",
        ClusterRef,
        ModelListView,
        Role.VIEWER,
        tags=("models",),
    ),
    # ---- training jobs (issue 14)
    CatalogEntry(
        "submit_job",
        "POST",
        "/api/clusters/{name}/jobs",
        "Submit a training job: kind pytorch (a HyperPodPyTorchJob run by the HyperPod training operator, with its"
        " restart policy, log-pattern hang detection and optional elastic policy) or ray (a KubeRay RayJob), from a"
        " recipe (pytorch-torchrun, llama-factory, ms-swift-sft, ms-swift-grpo, verl-ppo) or a custom image and"
        " command, on an instance group; every pod takes its node's GPUs and EFA. Applied to the cluster at once"
        " (effective at once): follow it with get_job until Succeeded or Failed, and read get_job_logs. dryRun true"
        " makes every check and answers the plan (the job, and the pods its operator starts), creating nothing.",
        SubmitJobInput,
        JobView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "list_jobs",
        "GET",
        "/api/clusters/{name}/jobs",
        "List the cluster's training jobs (HyperPodPyTorchJob and RayJob) with their status.",
        ListJobsInput,
        JobListView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_job",
        "GET",
        "/api/clusters/{name}/jobs/{jobName}",
        "Get a training job: status and reason, the restart budget used and left (process restarts, full job"
        " restarts, retries), hang detections, its pods with node and zone, and recent events.",
        JobRef,
        JobView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    CatalogEntry(
        "delete_job",
        "DELETE",
        "/api/clusters/{name}/jobs/{jobName}",
        "Delete a training job and its pods (effective at once); its checkpoints and outputs under jobs/<job>/ in"
        " the shared bucket are kept. Give the job's name again as confirm. dryRun true answers the plan (the job"
        " and its pods), deleting nothing; a job that is not there is 404.",
        DeleteJobInput,
        DeleteJobView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_job_logs",
        "GET",
        "/api/clusters/{name}/jobs/{jobName}/logs",
        "Read a training job's pod log: pod (default the first), container (default the first), the last tail"
        " lines, only lines from the last since seconds. Once a pod (or the whole job) is gone, the log comes from"
        " CloudWatch Logs when the observability feature is on.",
        JobLogsInput,
        JobLogsView,
        Role.VIEWER,
        tags=("jobs",),
    ),
    # ---- SageMaker managed MLflow for training jobs (issue 14)
    CatalogEntry(
        "configure_mlflow",
        "PUT",
        "/api/clusters/{name}/mlflow",
        "Create or pick the cluster's SageMaker managed MLflow tracking server (trackingServerName: an existing"
        " server to pick, or a new one's name; default launchpod-<cluster>-mlflow; size Small, Medium or Large)."
        " A new server stores its artifacts under mlflow/ in the shared bucket, with a role of its own. Starts the"
        " configure-mlflow operation, which makes the role and the server and ends when the server is Created"
        " (AWS: up to 25 minutes); NOOP when the cluster already uses that server; dryRun true answers the plan."
        " Jobs submitted afterwards log to it (MLFLOW_TRACKING_URI).",
        ConfigureMlflowInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("configure-mlflow",),
        query=("dryRun",),
        tags=("jobs",),
    ),
    CatalogEntry(
        "get_mlflow",
        "GET",
        "/api/clusters/{name}/mlflow",
        "Get the cluster's MLflow tracking server: its status (Creating, Created, ...), artifact store and, once"
        " Created, a presigned URL to the MLflow UI (valid 5 minutes, usable once).",
        MlflowRef,
        MlflowView,
        Role.VIEWER,
        tags=("jobs",),
    ),
)

BY_ID = {entry.id: entry for entry in CATALOG}
# The operations the MCP gateway offers as tools.
TOOLS: tuple[CatalogEntry, ...] = tuple(e for e in CATALOG if e.tool)


def entry(op_id: str) -> CatalogEntry:
    return BY_ID[op_id]
