"""SageMaker HyperPod: reading clusters (creating them arrives with the cluster-lifecycle workflows)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, or_none
from launchpod.adapters.aws.instance_groups import instance_group_state
from launchpod.adapters.aws.tags import tag_dict, tag_list
from launchpod.domain.clusters.hyperpod_cluster import AutoScaling, HyperPodCluster
from launchpod.domain.nodes.actions import HealthCheckTarget, NodeActionAnswer
from launchpod.domain.nodes.hyperpod_event import ClusterEvent, ClusterEventDetails, ClusterEventPage, EventFilter
from launchpod.domain.nodes.hyperpod_node import HyperPodNode, NodeDetails
from launchpod.domain.nodes.moves import MovedNodes, MoveRefusal, NodeMove
from launchpod.domain.training_plans import (
    CapacitySearch,
    ExtensionOffering,
    Reservation,
    TrainingPlan,
    TrainingPlanExtension,
    TrainingPlanOffering,
)

# What a region answers for an API it does not offer yet.
_NO_SUCH_OPERATION = {"UnknownOperationException", "InvalidAction"}


def hyperpod_node(summary: Mapping[str, Any]) -> HyperPodNode:
    """A node from ListClusterNodes' ClusterNodeSummary."""
    status = summary.get("InstanceStatus") or {}
    return HyperPodNode(
        node_id=str(summary["InstanceId"]),
        group=str(summary.get("InstanceGroupName") or ""),
        instance_type=str(summary.get("InstanceType") or ""),
        status=status.get("Status"),
        message=str(status.get("Message") or ""),
        launch_time=summary.get("LaunchTime"),
    )


def node_details(details: Mapping[str, Any]) -> NodeDetails:
    """A node from DescribeClusterNode's NodeDetails."""
    node = hyperpod_node(details)
    return NodeDetails(
        node.node_id,
        node.group,
        node.instance_type,
        node.status,
        node.message,
        node.launch_time,
        zone=(details.get("Placement") or {}).get("AvailabilityZone"),
        capacity_type=details.get("CapacityType"),
        private_ip=details.get("PrivatePrimaryIp"),
        private_dns=details.get("PrivateDnsHostname"),
        last_software_update=details.get("LastSoftwareUpdateTime"),
        image_release_version=details.get("CurrentImageReleaseVersion"),
        described=dict(details),
    )


def move_request(move: NodeMove) -> dict[str, Any]:
    """MoveClusterNodes' parameters for a move of nodes named by id."""
    return {
        "SourceClusterArn": move.source_cluster_arn,
        "SourceInstanceGroupName": move.source_group,
        "TargetClusterArn": move.target_cluster_arn,
        "TargetInstanceGroupName": move.target_group,
        "NodeIds": list(move.node_ids),
        "ClientToken": move.client_token,
    }


def node_refusal(failure: Mapping[str, Any]) -> dict[str, str]:
    """One entry of a batch node action's Failed list, as AWS worded it (BatchRebootClusterNodes answers
    ErrorCode, BatchDeleteClusterNodes Code)."""
    code = failure.get("ErrorCode") or failure.get("Code") or "Failed"
    message = str(failure.get("Message") or code)
    return {"nodeId": str(failure.get("NodeId", "?")), "code": str(code), "message": message}


def moved_nodes(answer: Mapping[str, Any]) -> MovedNodes:
    """MoveClusterNodes' answer to node ids: Successful and Failed (MoveClusterNodesError); Launchpod never
    names nodes by logical id, so the NodeLogicalIds forms of both stay unread."""
    return MovedNodes(
        accepted=tuple(str(i) for i in answer.get("Successful") or ()),
        refused=tuple(
            MoveRefusal(str(f.get("NodeId")), str(f.get("Code")), str(f.get("Message") or ""))
            for f in answer.get("Failed") or ()
        ),
    )


def event_filters(filters: EventFilter) -> dict[str, Any]:
    """ListClusterEvents' filter parameters, newest first (SortOrder Descending)."""
    named = (
        ("InstanceGroupName", filters.group),
        ("NodeId", filters.node_id),
        ("ResourceType", filters.resource_type),
        ("EventTimeAfter", filters.after),
        ("EventTimeBefore", filters.before),
    )
    return {key: value for key, value in named if value is not None} | {"SortOrder": "Descending"}


def hyperpod_cluster_of(described: Mapping[str, Any]) -> HyperPodCluster:
    """A cluster from DescribeCluster's answer."""
    vpc = described.get("VpcConfig") or {}
    auto = described.get("AutoScaling")
    tiered = described.get("TieredStorageConfig") or {}
    return HyperPodCluster(
        name=str(described.get("ClusterName") or ""),
        arn=str(described.get("ClusterArn") or ""),
        status=str(described.get("ClusterStatus") or ""),
        failure_message=described.get("FailureMessage") or None,
        node_recovery=described.get("NodeRecovery"),
        node_provisioning_mode=described.get("NodeProvisioningMode"),
        subnets=tuple(vpc.get("Subnets") or ()),
        security_group_ids=tuple(vpc.get("SecurityGroupIds") or ()),
        eks_arn=((described.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn"),
        autoscaling=AutoScaling(
            mode=auto.get("Mode"),
            autoscaler_type=auto.get("AutoScalerType"),
            status=auto.get("Status"),
            failure_message=auto.get("FailureMessage"),
        )
        if auto
        else None,
        cluster_role=described.get("ClusterRole"),
        tiered_storage_mode=tiered.get("Mode"),
        tiered_storage_memory_percentage=_int(tiered.get("InstanceMemoryAllocationPercentage")),
        instance_groups=tuple(instance_group_state(g) for g in described.get("InstanceGroups") or []),
    )


def cluster_event(summary: Mapping[str, Any]) -> ClusterEvent:
    """An event from ListClusterEvents' ClusterEventSummary."""
    return ClusterEvent(
        event_id=str(summary["EventId"]),
        cluster=summary.get("ClusterName"),
        time=summary.get("EventTime"),
        level=summary.get("EventLevel"),
        resource_type=summary.get("ResourceType"),
        group=summary.get("InstanceGroupName"),
        node_id=summary.get("InstanceId"),
        description=summary.get("Description"),
    )


def cluster_event_details(detail: Mapping[str, Any]) -> ClusterEventDetails:
    """An event from DescribeClusterEvent's EventDetails: the summary's fields and its metadata, whose parts
    (Cluster, InstanceGroup, Instance, ...) may each carry a FailureMessage."""
    event = cluster_event(detail)
    metadata = (detail.get("EventDetails") or {}).get("EventMetadata") or None
    return ClusterEventDetails(
        event.event_id,
        event.cluster,
        event.time,
        event.level,
        event.resource_type,
        event.group,
        event.node_id,
        event.description,
        metadata=dict(metadata) if metadata else None,
        failure_messages=tuple(
            str(m["FailureMessage"])
            for m in (metadata or {}).values()
            if isinstance(m, dict) and m.get("FailureMessage")
        ),
    )


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _reservation(reserved: Mapping[str, Any], count_key: str) -> Reservation:
    return Reservation(
        instance_type=reserved.get("InstanceType"),
        instance_count=_int(reserved.get(count_key)),
        zone=reserved.get("AvailabilityZone"),
        start_time=reserved.get("StartTime"),
        end_time=reserved.get("EndTime"),
    )


def plan_offering(raw: Mapping[str, Any]) -> TrainingPlanOffering:
    """An offering from SearchTrainingPlanOfferings' TrainingPlanOfferings (its first reserved capacity)."""
    return TrainingPlanOffering(
        offering_id=str(raw["TrainingPlanOfferingId"]),
        upfront_fee=_str(raw.get("UpfrontFee")),
        currency_code=raw.get("CurrencyCode"),
        duration_hours=_int(raw.get("DurationHours")),
        target_resources=tuple(raw.get("TargetResources") or ()),
        reservation=_reservation((raw.get("ReservedCapacityOfferings") or [{}])[0], "InstanceCount"),
    )


def training_plan_of(raw: Mapping[str, Any]) -> TrainingPlan:
    """A plan from DescribeTrainingPlan's answer or ListTrainingPlans' TrainingPlanSummary."""
    return TrainingPlan(
        name=str(raw["TrainingPlanName"]),
        arn=str(raw["TrainingPlanArn"]),
        status=raw.get("Status"),
        status_message=raw.get("StatusMessage"),
        start_time=raw.get("StartTime"),
        end_time=raw.get("EndTime"),
        duration_hours=_int(raw.get("DurationHours")),
        upfront_fee=_str(raw.get("UpfrontFee")),
        currency_code=raw.get("CurrencyCode"),
        target_resources=tuple(raw.get("TargetResources") or ()),
        total_instance_count=_int(raw.get("TotalInstanceCount")),
        in_use_instance_count=_int(raw.get("InUseInstanceCount")),
        available_instance_count=_int(raw.get("AvailableInstanceCount")),
        reservation=_reservation((raw.get("ReservedCapacitySummaries") or [{}])[0], "TotalInstanceCount"),
    )


def extension_offering(raw: Mapping[str, Any]) -> ExtensionOffering:
    """An extension offering from SearchTrainingPlanOfferings' TrainingPlanExtensionOfferings."""
    return ExtensionOffering(
        offering_id=str(raw["TrainingPlanExtensionOfferingId"]),
        zone=raw.get("AvailabilityZone"),
        start_date=raw.get("StartDate"),
        end_date=raw.get("EndDate"),
        duration_hours=_int(raw.get("DurationHours")),
        upfront_fee=_str(raw.get("UpfrontFee")),
        currency_code=raw.get("CurrencyCode"),
    )


def plan_extension(raw: Mapping[str, Any]) -> TrainingPlanExtension:
    """An extension from ExtendTrainingPlan's or DescribeTrainingPlanExtensionHistory's TrainingPlanExtensions."""
    return TrainingPlanExtension(offering_id=str(raw["TrainingPlanExtensionOfferingId"]))


def search_params(search: CapacitySearch) -> dict[str, Any]:
    """SearchTrainingPlanOfferings' parameters for a search (the window's bounds only when given)."""
    params: dict[str, Any] = {
        "InstanceType": search.instance_type,
        "InstanceCount": search.instance_count,
        "DurationHours": search.duration_hours,
        "TargetResources": [search.target],
    }
    if search.start_after:
        params["StartTimeAfter"] = search.start_after
    if search.end_before:
        params["EndTimeBefore"] = search.end_before
    return params


class SageMaker:
    def __init__(self) -> None:
        self.sm = client("sagemaker")

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None:
        """DescribeCluster, read as a HyperPodCluster; None when there is no such cluster."""
        with aws_call("sagemaker:DescribeCluster"):
            # SageMaker answers ValidationException for a cluster that does not exist.
            described = or_none(
                lambda: self.sm.describe_cluster(ClusterName=name), "ResourceNotFound", "ValidationException"
            )
        return hyperpod_cluster_of(described) if described is not None else None

    def create_cluster(
        self,
        *,
        name: str,
        eks_arn: str,
        instance_groups: list[dict[str, Any]],
        subnet_ids: list[str],
        security_group_ids: list[str],
        node_recovery: str,
        tags: dict[str, str],
        node_provisioning_mode: str | None = None,
    ) -> str:
        extra = {"NodeProvisioningMode": node_provisioning_mode} if node_provisioning_mode else {}
        with aws_call("sagemaker:CreateCluster"):
            return str(
                self.sm.create_cluster(
                    ClusterName=name,
                    InstanceGroups=instance_groups,
                    VpcConfig={"SecurityGroupIds": security_group_ids, "Subnets": subnet_ids},
                    Orchestrator={"Eks": {"ClusterArn": eks_arn}},
                    NodeRecovery=node_recovery,
                    Tags=tag_list(tags),
                    **extra,
                )["ClusterArn"]
            )

    def delete_cluster(self, name: str) -> None:
        with aws_call("sagemaker:DeleteCluster"):
            self.sm.delete_cluster(ClusterName=name)

    def tags(self, arn: str) -> dict[str, str]:
        with aws_call("sagemaker:ListTags"):
            return tag_dict(self.sm.list_tags(ResourceArn=arn).get("Tags"))

    def update_software(self, params: dict[str, Any]) -> None:
        with aws_call("sagemaker:UpdateClusterSoftware"):
            self.sm.update_cluster_software(**params)

    def update_cluster(self, params: dict[str, Any]) -> None:
        """UpdateCluster as given: the caller sends the whole instance-group list (see domain.instance_groups)."""
        with aws_call("sagemaker:UpdateCluster"):
            self.sm.update_cluster(**params)

    def training_plan(self, arn: str) -> TrainingPlan | None:
        """DescribeTrainingPlan by the plan's name (the last part of its ARN); None if there is none."""
        with aws_call("sagemaker:DescribeTrainingPlan"):
            found = or_none(
                lambda: self.sm.describe_training_plan(TrainingPlanName=arn.rsplit("/", 1)[-1]),
                "ResourceNotFound",
                "ValidationException",
            )
        return training_plan_of(found) if found is not None else None

    # ---- training plans

    def search_training_plan_offerings(self, search: CapacitySearch) -> list[TrainingPlanOffering]:
        with aws_call("sagemaker:SearchTrainingPlanOfferings"):
            answer = self.sm.search_training_plan_offerings(**search_params(search))
        return [plan_offering(o) for o in answer.get("TrainingPlanOfferings", [])]

    def create_training_plan(self, name: str, offering_id: str) -> str | None:
        """CreateTrainingPlan; None when a plan of that name exists (ResourceInUse: the API has no ClientToken,
        its name is the key)."""
        with aws_call("sagemaker:CreateTrainingPlan"):
            try:
                answer = self.sm.create_training_plan(TrainingPlanName=name, TrainingPlanOfferingId=offering_id)
            except ClientError as exc:
                if error_code(exc) in ("ResourceInUse", "ResourceInUseException"):
                    return None
                raise
            return str(answer["TrainingPlanArn"])

    def training_plans(self, status: str | None = None) -> list[TrainingPlan]:
        """ListTrainingPlans, every page (a Status filter when given)."""
        extra = {"Filters": [{"Name": "Status", "Value": status}]} if status else {}
        with aws_call("sagemaker:ListTrainingPlans"):
            pages = list(self.sm.get_paginator("list_training_plans").paginate(**extra))
        return [training_plan_of(p) for page in pages for p in page.get("TrainingPlanSummaries", [])]

    def training_plan_extension_offerings(self, arn: str) -> list[ExtensionOffering]:
        with aws_call("sagemaker:SearchTrainingPlanOfferings"):
            answer = self.sm.search_training_plan_offerings(TrainingPlanArn=arn)
        return [extension_offering(o) for o in answer.get("TrainingPlanExtensionOfferings", [])]

    def extend_training_plan(self, offering_id: str) -> list[TrainingPlanExtension]:
        with aws_call("sagemaker:ExtendTrainingPlan"):
            answer = self.sm.extend_training_plan(TrainingPlanExtensionOfferingId=offering_id)
        return [plan_extension(e) for e in answer.get("TrainingPlanExtensions", [])]

    def training_plan_extensions(self, arn: str) -> list[TrainingPlanExtension]:
        """DescribeTrainingPlanExtensionHistory, every page."""
        with aws_call("sagemaker:DescribeTrainingPlanExtensionHistory"):
            pages = list(
                self.sm.get_paginator("describe_training_plan_extension_history").paginate(TrainingPlanArn=arn)
            )
        return [plan_extension(e) for page in pages for e in page.get("TrainingPlanExtensions", [])]

    def hyperpod_names(self) -> list[str]:
        """The name of every HyperPod cluster of the account in this Region (ListClusters, every page)."""
        with aws_call("sagemaker:ListClusters"):
            pages = self.sm.get_paginator("list_clusters").paginate()
            return [c["ClusterName"] for page in pages for c in page.get("ClusterSummaries", [])]

    def hyperpod_clusters(self) -> list[HyperPodCluster]:
        """DescribeCluster of every HyperPod cluster of the account in this region."""
        found = (self.hyperpod_cluster(n) for n in self.hyperpod_names())
        return [c for c in found if c is not None]

    def latest_group_error(self, cluster: str, group: str, since: datetime | None = None) -> str | None:
        """Why an instance group failed: the newest Error-level event HyperPod recorded for it (after ``since``
        when given: the request's own). DescribeCluster has no failure message per group. The event's own
        FailureMessage (DescribeClusterEvent's metadata) is the reason; its Description may only say that
        something failed ("Instance creation in Cluster c and InstanceGroup g failed", as the HyperPod
        cluster events reference shows), so it is the fallback."""
        after = {"EventTimeAfter": since} if since else {}
        with aws_call("sagemaker:ListClusterEvents"):
            events = self.sm.list_cluster_events(
                ClusterName=cluster, InstanceGroupName=group, SortBy="EventTime", SortOrder="Descending", **after
            ).get("Events", [])
        newest = next((e for e in events if e.get("EventLevel") == "Error"), None)
        if newest is None:
            return None
        detail = self.describe_event(cluster, str(newest["EventId"]))
        reasons = detail.failure_messages if detail else ()
        description = str(newest.get("Description") or "")
        if reasons and reasons[0] not in description:
            return f"{description} {reasons[0]}".strip()
        return description or (reasons[0] if reasons else None)

    def scaling_operation(self, cluster: str, group: str, since: datetime) -> dict[str, Any] | None:
        """The newest Scaling operation HyperPod created after ``since`` that scales ``group``
        (ListClusterOperations newest first, then DescribeClusterOperation); None when none is listed,
        as in a region that does not record cluster operations yet."""
        with aws_call("sagemaker:ListClusterOperations"):
            try:
                summaries = self.sm.list_cluster_operations(
                    ClusterName=cluster,
                    Type="Scaling",
                    CreationTimeAfter=since,
                    SortBy="CreationTime",
                    SortOrder="Descending",
                    MaxResults=10,
                ).get("ClusterOperationSummaries", [])
            except ClientError as exc:
                if error_code(exc) in _NO_SUCH_OPERATION:
                    return None
                raise
        for summary in summaries:
            with aws_call("sagemaker:DescribeClusterOperation"):
                found = self.sm.describe_cluster_operation(ClusterName=cluster, OperationId=summary["OperationId"])
            found.pop("ResponseMetadata", None)
            if any(d.get("InstanceGroupName") == group for d in found.get("ScalingDetails") or []):
                return dict(found)
        return None

    def update_tiered_storage(self, name: str, mode: str, percentage: int | None) -> None:
        config: dict[str, Any] = {"Mode": mode}
        if percentage is not None:
            config["InstanceMemoryAllocationPercentage"] = percentage
        with aws_call("sagemaker:UpdateCluster"):
            self.sm.update_cluster(ClusterName=name, TieredStorageConfig=config)

    # ---- nodes and events

    def list_nodes(self, name: str) -> list[HyperPodNode]:
        """Every node of the cluster (ListClusterNodes, all pages)."""
        with aws_call("sagemaker:ListClusterNodes"):
            pages = self.sm.get_paginator("list_cluster_nodes").paginate(
                ClusterName=name, PaginationConfig={"PageSize": 100}
            )
            return [hyperpod_node(n) for page in pages for n in page.get("ClusterNodeSummaries", [])]

    def describe_node(self, name: str, node_id: str) -> NodeDetails | None:
        with aws_call("sagemaker:DescribeClusterNode"):
            found = or_none(
                lambda: self.sm.describe_cluster_node(ClusterName=name, NodeId=node_id)["NodeDetails"],
                "ResourceNotFound",
            )
        return node_details(found) if found is not None else None

    def node_action(self, action: str, name: str, node_ids: list[str]) -> NodeActionAnswer:
        """BatchRebootClusterNodes / BatchReplaceClusterNodes / BatchDeleteClusterNodes: Successful and Failed."""
        call = {
            "reboot": "BatchRebootClusterNodes",
            "replace": "BatchReplaceClusterNodes",
            "delete": "BatchDeleteClusterNodes",
        }[action]
        with aws_call(f"sagemaker:{call}"):
            answer = getattr(self.sm, f"batch_{action}_cluster_nodes")(ClusterName=name, NodeIds=node_ids)
        return NodeActionAnswer(
            accepted=tuple(str(i) for i in answer.get("Successful") or ()),
            refused=tuple(node_refusal(f) for f in answer.get("Failed") or ()),
        )

    def move_nodes(self, move: NodeMove) -> MovedNodes:
        """MoveClusterNodes with node ids: the nodes it started moving and those it refused."""
        with aws_call("sagemaker:MoveClusterNodes"):
            return moved_nodes(self.sm.move_cluster_nodes(**move_request(move)))

    def start_health_check(self, name: str, checks: Sequence[str], targets: Sequence[HealthCheckTarget]) -> None:
        """StartClusterHealthCheck: ``checks`` on each target group, on the nodes it names or all of them."""
        configs = [
            {
                "InstanceGroupName": t.group,
                "DeepHealthChecks": list(checks),
                **({"InstanceIds": list(t.node_ids)} if t.node_ids else {}),
            }
            for t in targets
        ]
        with aws_call("sagemaker:StartClusterHealthCheck"):
            self.sm.start_cluster_health_check(ClusterName=name, DeepHealthCheckConfigurations=configs)

    def list_events(self, name: str, filters: EventFilter, limit: int, token: str | None) -> ClusterEventPage:
        """One page of the cluster's events that pass ``filters``, newest first (ListClusterEvents)."""
        with aws_call("sagemaker:ListClusterEvents"):
            page = self.sm.list_cluster_events(
                ClusterName=name, MaxResults=limit, **event_filters(filters), **({"NextToken": token} if token else {})
            )
        return ClusterEventPage(tuple(cluster_event(e) for e in page.get("Events", [])), page.get("NextToken"))

    def describe_event(self, name: str, event_id: str) -> ClusterEventDetails | None:
        with aws_call("sagemaker:DescribeClusterEvent"):
            found = or_none(
                lambda: self.sm.describe_cluster_event(ClusterName=name, EventId=event_id)["EventDetails"],
                "ResourceNotFound",
            )
        return cluster_event_details(found) if found is not None else None
