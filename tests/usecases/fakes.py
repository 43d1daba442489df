"""In-memory ports for the use cases: what each would read from AWS, Kubernetes or the store, and what
was asked of it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from launchpod.domain.errors import LaunchpodError


class Servers:
    """SageMaker managed MLflow: tracking servers by name, and which names were described."""

    def __init__(self, servers: dict[str, dict[str, Any]]) -> None:
        self.servers, self.asked = servers, list[str]()

    def describe(self, name: str) -> dict[str, Any] | None:
        self.asked.append(name)
        return self.servers.get(name)


class Subnets:
    """EC2's subnets by id, and which ids were asked for."""

    def __init__(self, zones: dict[str, str]) -> None:
        self.zones, self.asked = zones, list[list[str]]()

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[dict[str, Any]]:
        self.asked.append(list(subnet_ids or []))
        return [{"SubnetId": s, "AvailabilityZone": self.zones[s]} for s in subnet_ids or [] if s in self.zones]


class ControlPlanes:
    """EKS: clusters by name, as DescribeCluster answers them."""

    def __init__(self, clusters: dict[str, dict[str, Any]]) -> None:
        self.clusters = clusters

    def cluster(self, name: str) -> dict[str, Any] | None:
        return self.clusters.get(name)


class HyperPod:
    """SageMaker's HyperPod: DescribeCluster by name, each cluster's nodes and events (newest first, paged by
    ``limit`` with the index as token), and which events were described."""

    def __init__(
        self,
        clusters: dict[str, dict[str, Any]],
        nodes: dict[str, list[dict[str, Any]]] | None = None,
        events: list[dict[str, Any]] | None = None,
    ) -> None:
        self.clusters, self.nodes, self.events = clusters, nodes or {}, events or []
        self.pages, self.described = 0, list[str]()

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None:
        return self.clusters.get(name)

    def hyperpod_clusters(self) -> list[dict[str, Any]]:
        return list(self.clusters.values())

    def list_nodes(self, name: str) -> list[dict[str, Any]]:
        return self.nodes.get(name, [])

    def describe_node(self, name: str, node_id: str) -> dict[str, Any] | None:
        return next((dict(n) for n in self.nodes.get(name, []) if n["InstanceId"] == node_id), None)

    def list_events(self, name: str, filters: dict[str, Any], limit: int, token: str | None) -> dict[str, Any]:
        self.pages += 1
        mine = [e for e in self.events if all(e.get(k) == v for k, v in filters.items() if k != "SortOrder")]
        start = int(token or 0)
        page: dict[str, Any] = {"Events": mine[start : start + limit]}
        if start + limit < len(mine):
            page["NextToken"] = str(start + limit)
        return page

    def describe_event(self, name: str, event_id: str) -> dict[str, Any] | None:
        self.described.append(event_id)
        return {"EventId": event_id, "EventDetails": {"EventMetadata": {}}}


class IncidentDocs:
    """The incidents table: one JSON document per cluster with its version; the next ``contended`` writes
    lose to a concurrent writer (each bumps the version as that writer's would)."""

    def __init__(self, docs: dict[str, dict[str, Any]] | None = None, contended: int = 0) -> None:
        self.docs = {k: (v, 1) for k, v in (docs or {}).items()}
        self.contended, self.writes = contended, 0

    def get(self, cluster: str) -> tuple[dict[str, Any], int]:
        import json

        doc, version = self.docs.get(cluster, ({"policy": None, "incidents": []}, 0))
        return json.loads(json.dumps(doc)), version

    def put(self, cluster: str, doc: dict[str, Any], version: int) -> bool:
        current = self.docs.get(cluster, ({}, 0))
        if self.contended:
            self.contended -= 1
            self.docs[cluster] = (current[0], current[1] + 1)
            return False
        if current[1] != version:
            return False
        self.writes += 1
        self.docs[cluster] = (doc, version + 1)
        return True


class Offerings:
    """EC2's zones and, per EC2 instance type, the zones offering it; which types were asked for."""

    def __init__(self, zones: list[str], offered: dict[str, list[str]]) -> None:
        self.zone_names, self.offered, self.asked = zones, offered, list[list[str]]()

    def zones(self) -> list[dict[str, str]]:
        return [{"name": z} for z in self.zone_names]

    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]:
        self.asked.append(list(instance_types))
        return {t: self.offered[t] for t in instance_types if t in self.offered}


class Quotas:
    """Service Quotas' applied SageMaker quotas by name; ``error`` is raised on every read."""

    def __init__(self, quotas: dict[str, dict[str, Any]], error: LaunchpodError | None = None) -> None:
        self.quotas, self.error = quotas, error

    def sagemaker_quotas(self, names: set[str]) -> dict[str, dict[str, Any]]:
        if self.error is not None:
            raise self.error
        return {n: q for n, q in self.quotas.items() if n in names}


def _offered(
    offered: dict[str, tuple[list[str], str | None]], name: str, kubernetes_version: str
) -> tuple[list[str], str | None]:
    """What a fake EKS offers of add-on ``name``: ``offered``'s entry, or else the manifest's pin alone."""
    if name in offered:
        return offered[name]
    from launchpod.domain import dependencies

    pins = {a.name: a.version for a in dependencies.manifest().addons}
    f = dependencies.manifest().features
    for entry in (f.trainingOperator, f.inferenceOperator, f.taskGovernance, f.observability):
        pins[entry.addon] = entry.version
    pin = pins.get(name)
    return ([pin], pin) if pin else ([], None)


class EksClusters:
    """EKS: clusters by name and their add-ons by cluster."""

    def __init__(
        self,
        clusters: dict[str, dict[str, Any]],
        addons: dict[str, dict[str, dict[str, Any]]],
        offered: dict[str, tuple[list[str], str | None]] | None = None,
    ) -> None:
        self.clusters, self._addons, self.offered = clusters, addons, offered or {}

    def cluster(self, name: str) -> dict[str, Any] | None:
        return self.clusters.get(name)

    def addons(self, cluster: str) -> dict[str, dict[str, Any]]:
        return self._addons.get(cluster, {})

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]:
        return _offered(self.offered, name, kubernetes_version)


class JobApi:
    """Pods (with their containers' logs), events and nodes of a cluster, as the jobs adapter reads them."""

    def __init__(self, pods: list[dict[str, Any]], logs: dict[tuple[str, str], str]) -> None:
        self._pods, self.logs, self.read_logs = pods, logs, list[tuple[str, str]]()

    def list_kind(self, cluster: str, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        return []

    def pods(self, cluster: str, namespace: str, selector: str) -> list[dict[str, Any]]:
        key, value = selector.split("=", 1)
        return [p for p in self._pods if (p["metadata"].get("labels") or {}).get(key) == value]

    def events(self, cluster: str, namespace: str) -> list[dict[str, Any]]:
        return []

    def nodes(self, cluster: str) -> list[dict[str, Any]]:
        return []

    def log(self, cluster: str, namespace: str, pod: str, container: str, tail: int, since: int | None) -> str | None:
        self.read_logs.append((pod, container))
        return self.logs.get((pod, container))


class UiServers(Servers):
    """SageMaker managed MLflow with presigned URLs: each one new, and which servers they were for."""

    def __init__(self, servers: dict[str, dict[str, Any]]) -> None:
        super().__init__(servers)
        self.presigned = list[str]()

    def presigned_url(self, name: str, expires: int = 300) -> str:
        self.presigned.append(name)
        return f"https://t-{name}.example/auth?authToken={len(self.presigned)}"


class NoShippedLogs:
    """CloudWatch Logs with nothing shipped."""

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> Any:
        return None


class Runs:
    """A tracking server's runs as its MLflow REST API answers: the newest run by (server ARN, experiment);
    ``error`` is raised instead (the API cannot be reached)."""

    def __init__(self, runs: dict[tuple[str, str], dict[str, Any]], error: LaunchpodError | None = None) -> None:
        self.runs, self.error, self.asked = runs, error, list[tuple[str, str]]()

    def latest_run(self, arn: str, experiment: str) -> dict[str, Any] | None:
        self.asked.append((arn, experiment))
        if self.error is not None:
            raise self.error
        return self.runs.get((arn, experiment))


class Addons:
    """EKS's add-ons of each cluster by name."""

    def __init__(self, addons: dict[str, dict[str, dict[str, Any]]]) -> None:
        self.by_cluster = addons

    def addons(self, cluster: str) -> dict[str, dict[str, Any]]:
        return self.by_cluster.get(cluster, {})


class Endpoints:
    """The endpoints on a cluster (adapters.k8s.endpoints): chats sent and pods bound are recorded."""

    def __init__(self, found: list[Any], answer: dict[str, Any] | None = None) -> None:
        self.found = found
        self.answer = answer or {}
        self.chats: list[dict[str, Any]] = []
        self.bound: list[tuple[str, str, str]] = []

    def endpoints(self, cluster: str, with_pods: bool = True, name: str | None = None) -> list[Any]:
        return [e for e in self.found if name is None or e.name == name]

    def endpoint(self, cluster: str, name: str) -> Any:
        return next(iter(self.endpoints(cluster, name=name)), None)

    def chat(self, cluster: str, real: Any, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        self.chats.append(payload)
        return self.answer, False

    def models(self, cluster: str, real: Any) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.answer.get("model", "model"), "object": "model"}]}

    def bind_pod(self, cluster: str, namespace: str, pod: str, endpoint: str) -> None:
        self.bound.append((namespace, pod, endpoint))


class Buckets:
    """S3's keys by bucket (adapters.aws.s3.list_keys)."""

    def __init__(self, keys: dict[str, list[dict[str, Any]]]) -> None:
        self.keys = keys
        self.listed: list[tuple[str, str]] = []

    def list_keys(self, bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]:
        self.listed.append((bucket, prefix))
        return [k for k in self.keys.get(bucket, []) if str(k["Key"]).startswith(prefix)], False


# ---------------------------------------------------------------------------- appended for the ucA use cases


class Ec2:
    """EC2: the region's zones, the zones offering each (EC2-named) instance type, and subnets by id."""

    def __init__(
        self, zones: list[str], offered: dict[str, list[str]] | None = None, subnets: dict[str, str] | None = None
    ) -> None:
        self.zone_names, self.offered, self.subnet_zones = zones, offered or {}, subnets or {}
        self.offerings_asked: list[tuple[list[str], str | None]] = []
        self.asked: list[list[str]] = []

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[dict[str, Any]]:
        self.asked.append(list(subnet_ids or []))
        return [
            {"SubnetId": s, "AvailabilityZone": self.subnet_zones[s]}
            for s in subnet_ids or []
            if s in self.subnet_zones
        ]

    def zones(self) -> list[dict[str, str]]:
        return [{"name": z, "zoneId": f"use1-az{i}", "state": "available"} for i, z in enumerate(self.zone_names, 1)]

    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]:
        self.offerings_asked.append((list(instance_types), zone))
        return {
            t: [z for z in zs if zone is None or z == zone]
            for t, zs in self.offered.items()
            if t in instance_types and (zone is None or zone in zs)
        }


class Eks(ControlPlanes):
    """EKS: clusters by name and the add-ons of each."""

    def __init__(
        self,
        clusters: dict[str, dict[str, Any]],
        addons: dict[str, dict[str, dict[str, Any]]] | None = None,
        offered: dict[str, tuple[list[str], str | None]] | None = None,
    ) -> None:
        super().__init__(clusters)
        self.addon_map = addons or {}
        self.offered = offered or {}

    def addons(self, cluster: str) -> dict[str, dict[str, Any]]:
        return self.addon_map.get(cluster, {})

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]:
        return _offered(self.offered, name, kubernetes_version)


class HyperPods:
    """SageMaker HyperPod: clusters as DescribeCluster answers them (by HyperPod name), and training plans."""

    def __init__(self, clusters: dict[str, dict[str, Any]], plans: dict[str, dict[str, Any]] | None = None) -> None:
        self.clusters, self.plans = clusters, plans or {}

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None:
        return self.clusters.get(name)

    def hyperpod_clusters(self) -> list[dict[str, Any]]:
        return list(self.clusters.values())

    def training_plan(self, arn: str) -> dict[str, Any] | None:
        return self.plans.get(arn)


class ServiceQuotas:
    """Service Quotas: SageMaker's quotas by name ({"Value": n}), and which names were asked."""

    def __init__(self, quotas: dict[str, float]) -> None:
        self.quotas, self.asked = quotas, list[str]()

    def sagemaker_quota(self, name: str) -> dict[str, Any] | None:
        self.asked.append(name)
        return {"QuotaName": name, "Value": self.quotas[name]} if name in self.quotas else None

    def sagemaker_quotas(self, names: set[str]) -> dict[str, dict[str, Any]]:
        self.asked.extend(sorted(names))
        return {n: {"QuotaName": n, "Value": v} for n, v in self.quotas.items() if n in names}


class PreferenceTable:
    """Each caller's preferences by subject."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}
        self.writes = 0

    def get(self, subject: str) -> dict[str, Any]:
        return self.items.get(subject, {"subject": subject})

    def set_active_cluster(self, subject: str, cluster: str | None) -> dict[str, Any]:
        self.writes += 1
        self.items[subject] = {"subject": subject, "activeCluster": cluster}
        return self.items[subject]


class Bucket:
    """S3 objects by key, listed a page at a time with '/' as delimiter (ListObjectsV2)."""

    def __init__(self, keys: dict[str, int]) -> None:
        self.keys = keys
        self.asked: list[tuple[str, str, str | None]] = []

    def __call__(self, bucket: str, prefix: str, token: str | None) -> dict[str, Any]:
        self.asked.append((bucket, prefix, token))
        under = sorted(k for k in self.keys if k.startswith(prefix))
        contents = [k for k in under if "/" not in k[len(prefix) :]]
        prefixes = sorted({prefix + k[len(prefix) :].split("/")[0] + "/" for k in under if "/" in k[len(prefix) :]})
        when = datetime(2026, 1, 1, tzinfo=UTC)
        return {
            "Contents": [{"Key": k, "Size": self.keys[k], "LastModified": when} for k in contents],
            "CommonPrefixes": [{"Prefix": p} for p in prefixes],
        }


class NotificationDocs:
    """The notifications table: subscribers per cluster (versioned) and the keys of sent notifications."""

    def __init__(self) -> None:
        self.docs: dict[str, tuple[list[dict[str, Any]], int]] = {}
        self.sent: set[str] = set()

    def subscribers(self, cluster: str) -> tuple[list[dict[str, Any]], int]:
        import json

        subs, version = self.docs.get(cluster, ([], 0))
        return json.loads(json.dumps(subs)), version

    def put_subscribers(self, cluster: str, subscribers: list[dict[str, Any]], version: int) -> bool:
        if self.docs.get(cluster, ([], 0))[1] != version:
            return False
        self.docs[cluster] = (subscribers, version + 1)
        return True

    def claim(self, key: str) -> bool:
        if key in self.sent:
            return False
        self.sent.add(key)
        return True


class NotificationTopic:
    """SNS's topic: what was published, and e-mail subscriptions with their filter policies (pending until
    ``confirm``)."""

    def __init__(self) -> None:
        self.published: list[dict[str, Any]] = []
        self.subscriptions: dict[str, dict[str, Any]] = {}

    def publish(self, subject: str, body: dict[str, Any], email_text: str, attributes: dict[str, str]) -> str:
        self.published.append({"subject": subject, "body": body, "email": email_text, "attributes": attributes})
        return f"m-{len(self.published)}"

    def subscribe_email(self, address: str, filter_policy: dict[str, list[str]]) -> str:
        arn = f"arn:aws:sns:us-east-1:123456789012:launchpod-notifications:{len(self.subscriptions) + 1}"
        self.subscriptions[arn] = {"endpoint": address, "filter": filter_policy, "pending": True}
        return arn

    def set_filter(self, subscription_arn: str, filter_policy: dict[str, list[str]]) -> None:
        self.subscriptions[subscription_arn]["filter"] = filter_policy

    def pending(self, subscription_arn: str) -> bool | None:
        found = self.subscriptions.get(subscription_arn)
        return None if found is None else bool(found["pending"])

    def unsubscribe(self, subscription_arn: str) -> None:
        self.subscriptions.pop(subscription_arn, None)


class TrainingPlanMarket(HyperPods):
    """SageMaker's training plans as its API answers them: offerings per search (keyed by instance type),
    plans by name (a second CreateTrainingPlan of one name is ResourceInUse: None), extensions by plan."""

    def __init__(
        self,
        offerings: dict[str, list[dict[str, Any]]],
        clusters: dict[str, dict[str, Any]] | None = None,
        extension_offers: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        super().__init__(clusters or {})
        self.offerings, self.extension_offers = offerings, extension_offers or {}
        self.bought: list[tuple[str, str]] = []
        self.extended: list[str] = []
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.searched: list[dict[str, Any]] = []

    def search_training_plan_offerings(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        self.searched.append(params)
        return list(self.offerings.get(params["InstanceType"], []))

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
            "Status": "Scheduled" if reserved["StartTime"] > datetime(2026, 1, 1, tzinfo=UTC) else "Active",
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

    def training_plan(self, arn: str) -> dict[str, Any] | None:
        return self.plans.get(arn.rsplit("/", 1)[-1])

    def training_plans(self, status: str | None = None) -> list[dict[str, Any]]:
        return [p for p in self.plans.values() if status is None or p["Status"] == status]

    def training_plan_extension_offerings(self, arn: str) -> list[dict[str, Any]]:
        return list(self.extension_offers.get(arn.rsplit("/", 1)[-1], []))

    def extend_training_plan(self, offering_id: str) -> list[dict[str, Any]]:
        for name, offers in self.extension_offers.items():
            offer = next((o for o in offers if o["TrainingPlanExtensionOfferingId"] == offering_id), None)
            if offer is not None:
                self.extended.append(offering_id)
                self.plans[name]["EndTime"] = offer["EndDate"]
                self.history.setdefault(self.plans[name]["TrainingPlanArn"], []).append(offer)
                offers.remove(offer)
                return self.history[self.plans[name]["TrainingPlanArn"]]
        raise KeyError(offering_id)

    def training_plan_extensions(self, arn: str) -> list[dict[str, Any]]:
        return list(self.history.get(arn, []))
