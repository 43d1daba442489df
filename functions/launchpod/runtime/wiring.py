"""Wiring: the only place adapters are built, once per container."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from launchpod.adapters.aws import clients as _clients
from launchpod.domain.storage import ObjectPage
from launchpod.runtime.settings import settings

if TYPE_CHECKING:
    from launchpod.adapters.aws.amp import Amp, AmpWorkspaces
    from launchpod.adapters.aws.ec2 import Ec2
    from launchpod.adapters.aws.eks import Eks
    from launchpod.adapters.aws.grafana import GrafanaWorkspaces
    from launchpod.adapters.aws.iam import Iam
    from launchpod.adapters.aws.instance_facts import InstanceFacts
    from launchpod.adapters.aws.logs import Logs
    from launchpod.adapters.aws.mlflow import Mlflow
    from launchpod.adapters.aws.sagemaker import SageMaker
    from launchpod.adapters.aws.service_quotas import ServiceQuotas
    from launchpod.adapters.aws.sfn import StepFunctions
    from launchpod.adapters.aws.sns import Sns
    from launchpod.adapters.aws.task_governance import TaskGovernance
    from launchpod.adapters.store.clusters import DynamoClusters
    from launchpod.adapters.store.connections import DynamoConnections
    from launchpod.adapters.store.incidents import DynamoIncidents
    from launchpod.adapters.store.log_pumps import DynamoLogPumps
    from launchpod.adapters.store.notifications import DynamoNotifications
    from launchpod.adapters.store.operations import DynamoOperations
    from launchpod.adapters.store.preferences import DynamoPreferences

# The Region a cluster's AWS calls go to (adapters.aws.clients): set once by whoever knows the cluster.
in_region = _clients.in_region
region = _clients.region


def _once(adapter: str, *named_settings: str) -> Callable[[], Any]:
    """The adapter class ``adapter`` ("<module under launchpod.adapters>:<class>"), imported and built on the
    first call, with the settings named (in order) as its arguments, and kept for the container's life (a warm
    Lambda reuses its clients and their connections). Imported on first use: a function's cold start imports
    the adapters it calls, not every adapter and the contracts each one reads."""

    @lru_cache(maxsize=1)
    def build() -> Any:
        module, _, name = adapter.partition(":")
        made = getattr(importlib.import_module(f"launchpod.adapters.{module}"), name)
        return made(*(getattr(settings(), setting) for setting in named_settings))

    return build


# The adapters over what the settings name: a table, the state machines, the notifications topic.
operations: Callable[[], DynamoOperations] = _once(
    "store.operations:DynamoOperations", "operations_table", "clusters_table", "runners_table"
)
clusters: Callable[[], DynamoClusters] = _once("store.clusters:DynamoClusters", "clusters_table")
connections: Callable[[], DynamoConnections] = _once("store.connections:DynamoConnections", "connections_table")
log_pumps: Callable[[], DynamoLogPumps] = _once("store.log_pumps:DynamoLogPumps", "connections_table")
workflows: Callable[[], StepFunctions] = _once("aws.sfn:StepFunctions", "workflows")
preferences: Callable[[], DynamoPreferences] = _once("store.preferences:DynamoPreferences", "preferences_table")
incidents: Callable[[], DynamoIncidents] = _once("store.incidents:DynamoIncidents", "incidents_table")
notifications: Callable[[], DynamoNotifications] = _once(
    "store.notifications:DynamoNotifications", "notifications_table"
)
sns: Callable[[], Sns] = _once("aws.sns:Sns", "notifications_topic_arn")

# The AWS services' adapters (each builds its client from adapters.aws.clients).
ec2: Callable[[], Ec2] = _once("aws.ec2:Ec2")
instance_facts: Callable[[], InstanceFacts] = _once("aws.instance_facts:InstanceFacts")
eks: Callable[[], Eks] = _once("aws.eks:Eks")
iam: Callable[[], Iam] = _once("aws.iam:Iam")
sagemaker: Callable[[], SageMaker] = _once("aws.sagemaker:SageMaker")
task_governance: Callable[[], TaskGovernance] = _once("aws.task_governance:TaskGovernance")
service_quotas: Callable[[], ServiceQuotas] = _once("aws.service_quotas:ServiceQuotas")
amp: Callable[[], Amp] = _once("aws.amp:Amp")
amp_workspaces: Callable[[], AmpWorkspaces] = _once("aws.amp:AmpWorkspaces")
grafana_workspaces: Callable[[], GrafanaWorkspaces] = _once("aws.grafana:GrafanaWorkspaces")
mlflow: Callable[[], Mlflow] = _once("aws.mlflow:Mlflow")
logs: Callable[[], Logs] = _once("aws.logs:Logs")


# The Kubernetes adapters pull in the kubernetes client: imported only by the functions that reach a cluster.
def kube_items() -> Callable[..., list[dict[str, Any]]]:
    """Every object of one kind of a cluster (adapters.k8s.listing.items)."""
    from launchpod.adapters.k8s import listing

    return listing.items


def kube_delete() -> Callable[..., bool]:
    """Delete one object of a cluster (adapters.k8s.apply.delete)."""
    from launchpod.adapters.k8s import apply

    return apply.delete


class S3Objects(Protocol):
    """The shared bucket's objects (adapters.aws.s3)."""

    def put_text(self, bucket: str, key: str, text: str) -> None: ...
    def delete_prefix(self, bucket: str, prefix: str) -> int: ...
    def list_page(self, bucket: str, prefix: str, token: str | None, max_keys: int = 1000) -> ObjectPage: ...
    def list_keys(self, bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]: ...


def s3() -> S3Objects:
    from launchpod.adapters.aws import s3

    return s3


class KubeObjects(Protocol):
    """A cluster's Kubernetes objects, applied server-side, read and deleted (adapters.k8s.apply)."""

    def apply(self, cluster: str, obj: dict[str, Any]) -> None: ...
    def get(self, cluster: str, path: str) -> Any: ...
    def read(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...
    def ready(self, found: dict[str, Any] | None) -> bool: ...
    def delete(self, cluster: str, obj: dict[str, Any]) -> bool: ...
    def list_labelled(self, cluster: str, api_version: str, kind: str, selector: str) -> list[dict[str, Any]]: ...
    def path_of(self, obj: dict[str, Any]) -> str: ...


def kube() -> KubeObjects:
    """The Kubernetes objects adapter; imported only by the functions that reach a cluster."""
    from launchpod.adapters.k8s import apply

    return apply


class KubeListing(Protocol):
    """Every object of one kind of a cluster, and a container's log (adapters.k8s.listing)."""

    def items(self, cluster: str, kind: str) -> list[dict[str, Any]]: ...
    def pod_log(self, cluster: str, namespace: str, pod: str, container: str, tail: int = 500) -> str: ...


class KubeDrain(Protocol):
    """Cordon, uncordon and evict (adapters.k8s.drain)."""

    def cordon(self, cluster: str, node: str) -> None: ...
    def uncordon(self, cluster: str, node: str) -> None: ...
    def evict(self, cluster: str, namespace: str, pod: str) -> bool: ...


def kube_drain() -> KubeDrain:
    from launchpod.adapters.k8s import drain

    return drain


def kube_listing() -> KubeListing:
    from launchpod.adapters.k8s import listing

    return listing


# ---------------------------------------------------------------------------- the use cases' Kubernetes readers

if TYPE_CHECKING:
    from launchpod.domain.inference.endpoints import RealEndpoint


class KubeJobs(Protocol):
    """A cluster's training jobs, their pods, the events and nodes around them, a container's log
    (adapters.k8s.jobs)."""

    def list_kind(self, cluster: str, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]: ...
    def pods(self, cluster: str, namespace: str, selector: str) -> list[dict[str, Any]]: ...
    def events(self, cluster: str, namespace: str) -> list[dict[str, Any]]: ...
    def nodes(self, cluster: str) -> list[dict[str, Any]]: ...
    def log(
        self, cluster: str, namespace: str, pod: str, container: str, tail: int, since: int | None
    ) -> str | None: ...


def kube_jobs() -> KubeJobs:
    from launchpod.adapters.k8s import jobs

    return jobs


class KubeEndpoints(Protocol):
    """The inference endpoints Launchpod deployed on a cluster's API server (adapters.k8s.endpoints)."""

    def endpoints(self, cluster: str, with_pods: bool = True, name: str | None = None) -> list[RealEndpoint]: ...
    def endpoint(self, cluster: str, name: str) -> RealEndpoint | None: ...
    def scale(self, cluster: str, real: RealEndpoint, replicas: int) -> None: ...
    def chat(self, cluster: str, real: RealEndpoint, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]: ...
    def models(self, cluster: str, real: RealEndpoint) -> dict[str, Any]: ...
    def bind_pod(self, cluster: str, namespace: str, pod: str, endpoint: str) -> None: ...


def kube_endpoints() -> KubeEndpoints:
    from launchpod.adapters.k8s import endpoints

    return endpoints


# ------------------------------------------------------------------------ the event, stream and API handlers' clients

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from launchpod.contracts.operations import OperationView


class WebSocketPush(Protocol):
    """API Gateway's management API: a message posted to one WebSocket connection (adapters.aws.websocket)."""

    def post(self, endpoint: str, connection_id: str, message: dict[str, Any]) -> bool: ...


def websocket() -> WebSocketPush:
    from launchpod.adapters.aws import websocket

    return websocket


class AsyncInvoke(Protocol):
    """An asynchronous Lambda invocation (adapters.aws.lambda_invoke.invoke_async)."""

    def __call__(self, function_name: str, event: dict[str, Any]) -> None: ...


def invoke_async() -> AsyncInvoke:
    from launchpod.adapters.aws import lambda_invoke

    return lambda_invoke.invoke_async


class PodLogs(Protocol):
    """A pod and its stamped log since a cursor, as a live log pump reads them (adapters.k8s.log_follow)."""

    READ_LIMIT_BYTES: int

    def pod(self, cluster: str, namespace: str, name: str) -> dict[str, Any] | None: ...
    def default_container(self, found: dict[str, Any]) -> str | None: ...
    def read_since(self, cluster: str, namespace: str, name: str, container: str | None, since: str) -> str | None: ...


def pod_logs() -> PodLogs:
    from launchpod.adapters.k8s import log_follow

    return log_follow


class Tokens(Protocol):
    """OIDC ID tokens verified against their issuer's published keys (adapters.tokens)."""

    COGNITO_GROUPS: str

    def verify(self, token: str, *, issuer: str, audience: str, groups_claim: str | None = None) -> dict[str, Any]: ...


def tokens() -> Tokens:
    from launchpod.adapters import tokens

    return tokens


class Webhooks(Protocol):
    """Chat webhooks: where a URL resolves, and a JSON body posted to it (adapters.webhooks)."""

    def addresses(self, url: str) -> list[str]: ...
    def post_json(self, url: str, body: dict[str, Any]) -> int: ...


def webhooks() -> Webhooks:
    from launchpod.adapters import webhooks

    return webhooks


def operation_image() -> Callable[[dict[str, Any]], OperationView]:
    """An operation as the operations table's DynamoDB stream carries it (a record's ``NewImage``)."""
    from launchpod.adapters.store.dynamo import attrs_to_item
    from launchpod.adapters.store.operations import DynamoOperations

    return lambda image: DynamoOperations.view_of(attrs_to_item(image))


@lru_cache(maxsize=1)
def idempotency_store() -> DynamoDBPersistenceLayer:
    """Powertools' idempotency records, in the idempotency table."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from launchpod.adapters.aws.clients import client

    return DynamoDBPersistenceLayer(table_name=settings().idempotency_table, boto3_client=client("dynamodb"))


class CallerIdentity(Protocol):
    """Who Launchpod is, as an IAM principal an EKS access entry can name (adapters.aws.sts)."""

    def caller_principal_arn(self) -> str: ...


def sts() -> CallerIdentity:
    from launchpod.adapters.aws import sts

    return sts


class KubeReads(Protocol):
    """Read-only calls to a cluster's Kubernetes API (adapters.k8s.reads)."""

    def server_version_and_namespaces(self, cluster: str) -> tuple[str, list[str]]: ...


def kube_reads() -> KubeReads:
    """Imported only by the functions that reach a cluster (it pulls in the kubernetes client)."""
    from launchpod.adapters.k8s import reads

    return reads


class FileSystems(Protocol):
    """FSx's file systems, as DescribeFileSystems describes them (adapters.aws.fsx)."""

    def file_system(self, file_system_id: str) -> dict[str, Any]: ...


def fsx() -> FileSystems:
    from launchpod.adapters.aws import fsx

    return fsx
