"""SageMaker in memory: the HyperPodMoves / HyperPodClusters / HyperPods / TrainingPlans ports
(adapters.aws.sagemaker); nodes, events, plans and offerings are seeded as ListClusterNodes,
ListClusterEvents, DescribeTrainingPlan and SearchTrainingPlanOfferings answer them and read through the
adapter's builders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from launchpod.adapters.aws.sagemaker import (
    cluster_event,
    cluster_event_details,
    event_filters,
    extension_offering,
    hyperpod_cluster_of,
    hyperpod_node,
    move_request,
    moved_nodes,
    node_details,
    plan_extension,
    plan_offering,
    training_plan_of,
)
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes.hyperpod_event import ClusterEventDetails, ClusterEventPage, EventFilter
from launchpod.domain.nodes.hyperpod_node import HyperPodNode, NodeDetails
from launchpod.domain.nodes.moves import MovedNodes, NodeMove
from launchpod.domain.training_plans import (
    CapacitySearch,
    ExtensionOffering,
    TrainingPlan,
    TrainingPlanExtension,
    TrainingPlanOffering,
)


def _matches(event: dict[str, Any], filters: dict[str, Any]) -> bool:
    """ListClusterEvents' filters as SageMaker applies them: NodeId is the event's InstanceId, the time bounds
    compare with its EventTime (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ListClusterEvents.html)."""
    for key, value in filters.items():
        if key == "SortOrder":
            continue
        if key in ("EventTimeAfter", "EventTimeBefore"):
            at = event.get("EventTime")
            if at is None or (at < value if key == "EventTimeAfter" else at > value):
                return False
        elif event.get("InstanceId" if key == "NodeId" else key) != value:
            return False
    return True


class SageMaker:
    """SageMaker's HyperPod: DescribeCluster by name, each cluster's nodes and events (newest first, paged by
    ``limit`` with the index as token), which events were described, and training plans by ARN."""

    def __init__(
        self,
        clusters: dict[str, dict[str, Any]],
        nodes: dict[str, list[dict[str, Any]]] | None = None,
        events: list[dict[str, Any]] | None = None,
        plans: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.clusters, self.nodes, self.events = clusters, nodes or {}, events or []
        self.plans = plans or {}
        self.pages, self.described = 0, list[str]()
        self.tagged: dict[str, dict[str, str]] = {}  # ARN -> its tags, as ListTags answers them

    def tags(self, arn: str) -> dict[str, str]:
        return dict(self.tagged.get(arn, {}))

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None:
        """The seeded DescribeCluster answer, read as the adapter reads it."""
        found = self.clusters.get(name)
        return hyperpod_cluster_of({"ClusterName": name, **found}) if found is not None else None

    def hyperpod_names(self) -> list[str]:
        return list(self.clusters)

    def hyperpod_clusters(self) -> list[HyperPodCluster]:
        """The seeded DescribeCluster answers (a seed without its name is named by its key), read as the adapter
        reads them."""
        return [hyperpod_cluster_of({"ClusterName": n, **c}) for n, c in self.clusters.items()]

    def _known(self, name: str, action: str) -> None:
        """SageMaker's answer for a cluster that does not exist (ResourceNotFound, which the adapter does not
        count among its not-found codes: a PermanentError)."""
        if name not in self.clusters:
            raise PermanentError(f"sagemaker:{action} failed: ResourceNotFound: Cluster {name} not found.")

    def list_nodes(self, name: str) -> list[HyperPodNode]:
        """The seeded ListClusterNodes summaries, read as the adapter reads them."""
        self._known(name, "ListClusterNodes")
        return [hyperpod_node(n) for n in self.nodes.get(name, [])]

    def describe_node(self, name: str, node_id: str) -> NodeDetails | None:
        """The seeded node (its summary standing for DescribeClusterNode's details), read as the adapter does."""
        return next((node_details(n) for n in self.nodes.get(name, []) if n["InstanceId"] == node_id), None)

    def move_nodes(self, move: NodeMove) -> MovedNodes:
        """MoveClusterNodes by node id within one seeded cluster, as the sandbox answers it: a node not in the
        source group is NodeIdNotFound, one not Running InvalidNodeStatus; the others start DetachInProgress.
        None movable fails the request (ValidationException, a PermanentError)."""
        params = move_request(move)
        name = next((n for n, c in self.clusters.items() if c.get("ClusterArn") == params["SourceClusterArn"]), "")
        nodes = {n["InstanceId"]: n for n in self.nodes.get(name, [])}
        group, answer = params["SourceInstanceGroupName"], dict[str, list[Any]](Successful=[], Failed=[])
        for node_id in params["NodeIds"]:
            node = nodes.get(node_id)
            status = ((node or {}).get("InstanceStatus") or {}).get("Status")
            if node is None or node["InstanceGroupName"] != group:
                failed = ("NodeIdNotFound", f"Node {node_id} does not exist in instance group {group}.")
            elif status != "Running":
                failed = ("InvalidNodeStatus", f"Node {node_id} is {status}; only Running nodes can be moved.")
            else:
                node["InstanceStatus"] = {"Status": "DetachInProgress"}
                answer["Successful"].append(node_id)
                continue
            answer["Failed"].append({"NodeId": node_id, "Code": failed[0], "Message": failed[1]})
        if not answer["Successful"]:
            reasons = "; ".join(f["Message"] for f in answer["Failed"])
            raise PermanentError(
                f"sagemaker:MoveClusterNodes failed: ValidationException: None of the nodes can be moved: {reasons}"
            )
        return moved_nodes(answer)

    def list_events(self, name: str, filters: EventFilter, limit: int, token: str | None) -> ClusterEventPage:
        """The seeded events (newest first) that pass the filters the adapter would send, read as it reads them."""
        self._known(name, "ListClusterEvents")
        self.pages += 1
        sent = event_filters(filters)
        mine = [e for e in self.events if e.get("ClusterName", name) == name and _matches(e, sent)]
        start = int(token or 0)
        events = tuple(cluster_event(e) for e in mine[start : start + limit])
        return ClusterEventPage(events, str(start + limit) if start + limit < len(mine) else None)

    def describe_event(self, name: str, event_id: str) -> ClusterEventDetails | None:
        """The event with its details (none of its metadata); None for an event or a cluster that does not exist."""
        self.described.append(event_id)
        found = next(
            (e for e in self.events if e.get("EventId") == event_id and e.get("ClusterName", name) == name), None
        )
        if name not in self.clusters or found is None:
            return None
        return cluster_event_details({**found, "EventDetails": {"EventMetadata": {}}})

    def training_plan(self, arn: str) -> TrainingPlan | None:
        """The seeded plan (DescribeTrainingPlan's answer, keyed by its ARN), read as the adapter reads it."""
        found = self.plans.get(arn)
        return training_plan_of(found) if found is not None else None


def offering(offering_id: str, zone: str, fee: str, start: datetime) -> dict[str, Any]:
    """A training plan offering as SearchTrainingPlanOfferings answers it: two ml.p5.48xlarge in ``zone`` for a
    week from ``start``, for HyperPod clusters, at an upfront ``fee`` in US dollars."""
    reserved = {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "AvailabilityZone": zone, "StartTime": start}
    return {
        "TrainingPlanOfferingId": offering_id,
        "TargetResources": ["hyperpod-cluster"],
        "DurationHours": 168,
        "UpfrontFee": fee,
        "CurrencyCode": "USD",
        "ReservedCapacityOfferings": [{**reserved, "EndTime": start + timedelta(hours=168)}],
    }


class TrainingPlanMarket(SageMaker):
    """SageMaker's training plans as its API answers them: offerings per search (keyed by instance type),
    plans by name (a second CreateTrainingPlan of one name is ResourceInUse: None), extensions by plan."""

    def __init__(
        self,
        offerings: dict[str, list[dict[str, Any]]],
        clusters: dict[str, dict[str, Any]] | None = None,
        extension_offers: dict[str, list[dict[str, Any]]] | None = None,
        now: datetime | None = None,
    ) -> None:
        """``now`` fixes the fake's clock (a plan's status follows it); by default it is the real time."""
        super().__init__(clusters or {})
        self.now = now
        self.offerings, self.extension_offers = offerings, extension_offers or {}
        self.bought: list[tuple[str, str]] = []
        self.extended: list[str] = []
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.searched: list[CapacitySearch] = []

    def search_training_plan_offerings(self, search: CapacitySearch) -> list[TrainingPlanOffering]:
        self.searched.append(search)
        return [plan_offering(o) for o in self.offerings.get(search.instance_type, [])]

    def create_training_plan(self, name: str, offering_id: str) -> str | None:
        if name in self.plans:
            return None
        offering = next(o for os_ in self.offerings.values() for o in os_ if o["TrainingPlanOfferingId"] == offering_id)
        reserved = offering["ReservedCapacityOfferings"][0]
        arn = f"arn:aws:sagemaker:us-east-1:123456789012:training-plan/{name}"
        self.bought.append((name, offering_id))
        self.plans[name] = {
            "TrainingPlanArn": arn,
            "TrainingPlanName": name,
            "Status": self._status(reserved["StartTime"], reserved["EndTime"]),
            "StartTime": reserved["StartTime"],
            "EndTime": reserved["EndTime"],
            "DurationHours": offering["DurationHours"],
            "UpfrontFee": offering["UpfrontFee"],
            "CurrencyCode": offering["CurrencyCode"],
            "TotalInstanceCount": reserved["InstanceCount"],
            "AvailableInstanceCount": reserved["InstanceCount"],
            "InUseInstanceCount": 0,
            "TargetResources": offering["TargetResources"],
            "ReservedCapacitySummaries": [
                {k: reserved[k] for k in ("InstanceType", "AvailabilityZone", "StartTime", "EndTime")}
                | {"TotalInstanceCount": reserved["InstanceCount"]}
            ],
        }
        return arn

    def _fresh(self, plan: dict[str, Any]) -> dict[str, Any]:
        return {**plan, "Status": self._status(plan["StartTime"], plan["EndTime"])}

    def training_plan(self, arn: str) -> TrainingPlan | None:
        found = self.plans.get(arn.rsplit("/", 1)[-1])
        return training_plan_of(self._fresh(found)) if found is not None else None

    def _status(self, start: datetime, end: datetime) -> str:
        """Scheduled until its start, Active until its end, then Expired (the TrainingPlanStatus values)."""
        now = self.now or datetime.now(UTC)
        return "Scheduled" if start > now else "Active" if end > now else "Expired"

    def training_plans(self, status: str | None = None) -> list[TrainingPlan]:
        fresh = map(self._fresh, self.plans.values())
        return [training_plan_of(p) for p in fresh if status is None or p["Status"] == status]

    def training_plan_extension_offerings(self, arn: str) -> list[ExtensionOffering]:
        return [extension_offering(o) for o in self.extension_offers.get(arn.rsplit("/", 1)[-1], [])]

    def extend_training_plan(self, offering_id: str) -> list[TrainingPlanExtension]:
        for name, offers in self.extension_offers.items():
            offer = next((o for o in offers if o["TrainingPlanExtensionOfferingId"] == offering_id), None)
            if offer is not None:
                self.extended.append(offering_id)
                self.plans[name]["EndTime"] = offer["EndDate"]
                self.history.setdefault(self.plans[name]["TrainingPlanArn"], []).append(offer)
                offers.remove(offer)
                return [plan_extension(e) for e in self.history[self.plans[name]["TrainingPlanArn"]]]
        raise KeyError(offering_id)

    def training_plan_extensions(self, arn: str) -> list[TrainingPlanExtension]:
        return [plan_extension(e) for e in self.history.get(arn, [])]
