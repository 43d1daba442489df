"""moto extensions that make SageMaker HyperPod behave like the service Launchpod drives.

Stock moto 5.2.5 creates HyperPod clusters InService at once, drops ``Orchestrator``, ``NodeRecovery`` and
most instance-group fields, checks instance types against a list that lacks ml.p5en/ml.p6/ml.trn2/ml.g6e,
names nodes ``<group>-<n>`` and answers NotImplementedError for UpdateCluster, UpdateClusterSoftware and
the batch node operations. ``install()`` replaces moto's cluster operations with a model that keeps every
field botocore's ``sagemaker`` model allows and runs on simulated time (``sandbox.aws.clock``):

* CreateCluster: ClusterStatus Creating -> InService once every instance is up (``cluster_create``,
  900 simulated seconds, see ``set_cluster_creation_seconds``); instance groups Creating -> InService;
  instances ``i-<17 hex>`` go Pending -> Running, with a DeepHealthCheckInProgress phase first
  (``deep_health_check``, 600 s) when the group asks for ``OnStartDeepHealthChecks``; ``CurrentCount``
  counts running instances, so it reaches ``TargetCount`` at InService.
* UpdateCluster upserts instance groups (new ones Creating, scaled ones Updating; added instances take
  ``scale_up`` seconds; scale-down removes the newest instances), deletes ``InstanceGroupsToDelete``
  (Deleting for ``group_delete`` seconds) and changes NodeRecovery and the other cluster settings.
  ClusterStatus is Updating until the groups settle. A listed group's specification replaces the old one as
  given (a field left out is reset). A group's fixed fields (InstanceType, CapacityRequirements,
  NetworkInterface, OverrideVpcConfig subnets) are refused with a ValidationException naming the field; a
  second UpdateCluster while the cluster is not InService is a ConflictException (one update at a time).
* UpdateClusterSoftware: SystemUpdating, in rolling batches when ``DeploymentConfig`` says so
  (``software_update`` seconds per batch plus ``WaitIntervalInSeconds``), then InService.
* BatchRebootClusterNodes (Pending for ``reboot`` seconds, same instance), BatchReplaceClusterNodes (a new
  instance id, ``replace`` seconds, deep health checks again if configured), BatchDeleteClusterNodes
  (gone at once; TargetCount decreases). Unknown ids are listed in ``Failed`` with
  ``InstanceIdNotFound`` / ``NodeIdNotFound``, instances that are not up with ``InvalidInstanceStatus`` /
  ``InvalidNodeStatus``, as botocore's error-code enums name them.
* MoveClusterNodes (``moves``): the same instances leave one group (DetachInProgress) and join another
  (AttachInProgress, then Running), the training plan's usage unchanged.
* DeleteCluster: Deleting for ``cluster_delete`` seconds, then DescribeCluster answers ``ResourceNotFound``
  (the only error botocore lists for it; moto said ValidationException).
* ListClusterEvents / DescribeClusterEvent report creation, health checks, failures and node operations.

Validation (``ValidationException`` with AWS's wording): cluster and group names follow
``[a-zA-Z0-9](-*[a-zA-Z0-9])*``; InstanceType must be in botocore's ``ClusterInstanceType`` enum (read
from the installed botocore, so new types come for free); ExecutionRole and ``Orchestrator.Eks.ClusterArn``
must be ARNs of the right form, and the EKS cluster must exist in the emulated EKS. The lifecycle-script
rule kept is AWS's: ``LifeCycleConfig`` is required for Slurm clusters and optional for EKS ones (AWS made
lifecycle scripts optional for EKS in 2025), ``SourceS3Uri`` must be an ``s3://<bucket>/...`` URI, and the
bucket must start with ``sagemaker-`` (the prefix the managed ``AmazonSageMakerClusterInstanceRolePolicy``
grants) unless the execution role, as stored in the emulated IAM, has its own policy allowing
``s3:GetObject`` on that bucket. moto enforced the prefix unconditionally.

Faults (``HYPERPOD_FAULTS.fail_next_create(kind)``, one-shot, consumed by the next CreateCluster):
``capacity`` fails the cluster (Creating -> Failed after 30% of the creation time) with EC2's insufficient
capacity wording; ``lifecycle_script`` fails it after 60% with the CloudWatch log group to read, as AWS
rolls back a cluster whose lifecycle script failed (instances are removed, the group is Failed);
``deep_health_check`` keeps the cluster: one instance fails its deep health check, so it is reported
``Failure`` with the check's message, its Kubernetes Node is labelled ``UnschedulablePendingReplacement``
and ``deep-health-check-status: Failed``, its group is ``Degraded``, and, as HyperPod does with
``NodeRecovery: Automatic``, it is replaced ``auto_recovery`` seconds later (with ``None`` it stays until
BatchReplaceClusterNodes or BatchDeleteClusterNodes).

Kubernetes: ``set_node_sink(fn)`` makes every state change of a cluster orchestrated by EKS cluster X call
``fn(X, nodes)`` with the full desired list of Node objects of the HyperPod clusters attached to X (names
``hyperpod-<instance id>``, HyperPod's labels, GPU/Neuron/EFA capacity); ``kube_node_sink(fleet)`` is a
ready-made ``fn`` for ``sandbox.kube.KubeFleet``. State advances lazily, when a cluster is described,
listed or changed, like moto's ManagedState.

All of HyperPod is this package, one module a responsibility, each importing only those listed before it
(no import circle; the order in which a settle or an update does things is written out where it happens):

* ``common`` (the lock, ARN patterns, Node labels, botocore's model, ids, placement), ``durations``
  (transition times, the HyperPod clock), ``instances`` (what an instance type offers the kubelet),
  ``network`` (whether an instance can join its EKS cluster, from the VPC), ``node_agents`` (where the
  health-monitoring agent runs), ``autoscaling`` (HyperPod-managed Karpenter, the AWS side),
  ``training_plans`` and ``capacity`` (training plans, cluster-usage quotas, Spot capacity);
* ``models`` (nodes, instance groups, clusters, operations and their statuses), ``nodes`` (launch,
  replace, reboot, the per-node part of the batch node operations), ``health_agent`` (the faults the
  health-monitoring agent finds, reports and has repaired), ``operations`` (cluster operations' records),
  ``faults`` (one-shot CreateCluster failures);
* ``lifecycle`` (announce and settle), ``kube_nodes`` (the Kubernetes Node objects and their sink),
  ``events`` (status-change events), ``views`` (what Describe/List answer), ``validation``
  (CreateCluster/UpdateCluster input), ``clusters``, ``node_operations`` and ``moves`` (the API's operations),
  ``health_checks`` (StartClusterHealthCheck), ``node_faults`` (the sandbox control that injects faults),
  ``task_governance`` (scheduler configs and compute quotas);
* ``responses`` (moto response methods), ``sync`` (the ticker) and ``backend`` (``install``, ``reset``).

This module re-exports what the rest of the sandbox and the tests use. MLflow tracking servers are
SageMaker but not HyperPod: ``sandbox.aws.mlflow``.
"""

from __future__ import annotations

from sandbox.aws.sagemaker.backend import install, reset
from sandbox.aws.sagemaker.clusters import find_cluster as find_cluster
from sandbox.aws.sagemaker.clusters import require_in_service as require_in_service
from sandbox.aws.sagemaker.clusters import update_cluster
from sandbox.aws.sagemaker.common import (
    CLUSTER_NAME_LABEL,
    DEEP_HEALTH_LABEL,
    GROUP_LABEL,
    HEALTH_LABEL,
    NODE_PREFIX,
    instance_types,
)
from sandbox.aws.sagemaker.common import LOCK as LOCK
from sandbox.aws.sagemaker.common import drop_empty as drop_empty
from sandbox.aws.sagemaker.common import invalid as invalid
from sandbox.aws.sagemaker.common import paginate as paginate
from sandbox.aws.sagemaker.common import request_params as request_params
from sandbox.aws.sagemaker.common import subnet_placements as subnet_placements
from sandbox.aws.sagemaker.common import utcnow as utcnow
from sandbox.aws.sagemaker.durations import (
    DEFAULT_DURATIONS,
    describe_durations,
    reset_durations,
    set_cluster_creation_seconds,
    set_durations,
    sim_now,
)
from sandbox.aws.sagemaker.events import STATE_CHANGE, eventbridge_state_sink, set_state_sink
from sandbox.aws.sagemaker.faults import HYPERPOD_FAULTS, HyperPodFaults, mark_unpatched
from sandbox.aws.sagemaker.kube_nodes import desired_nodes, kube_node_sink, node_object, set_node_sink
from sandbox.aws.sagemaker.kube_nodes import pending_pushes as pending_pushes
from sandbox.aws.sagemaker.kube_nodes import push_nodes as push_nodes
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, InstanceGroup, group_status
from sandbox.aws.sagemaker.models import Phase as Phase
from sandbox.aws.sagemaker.models import group_nodes as group_nodes
from sandbox.aws.sagemaker.models import is_settled as is_settled
from sandbox.aws.sagemaker.node_operations import batch_add_nodes, batch_node_operation
from sandbox.aws.sagemaker.responses import eks_of as eks_of
from sandbox.aws.sagemaker.responses import epoch_seconds as epoch_seconds
from sandbox.aws.sagemaker.responses import run_response as run_response
from sandbox.aws.sagemaker.sync import sync_nodes, ticker
from sandbox.aws.sagemaker.views import group_details

__all__ = [
    "CLUSTER_NAME_LABEL",
    "DEEP_HEALTH_LABEL",
    "DEFAULT_DURATIONS",
    "GROUP_LABEL",
    "HEALTH_LABEL",
    "HYPERPOD_FAULTS",
    "NODE_PREFIX",
    "STATE_CHANGE",
    "HyperPodCluster",
    "HyperPodFaults",
    "HyperPodNode",
    "InstanceGroup",
    "batch_add_nodes",
    "batch_node_operation",
    "describe_durations",
    "desired_nodes",
    "eventbridge_state_sink",
    "group_details",
    "group_status",
    "install",
    "instance_types",
    "kube_node_sink",
    "mark_unpatched",
    "node_object",
    "reset",
    "reset_durations",
    "set_cluster_creation_seconds",
    "set_durations",
    "set_node_sink",
    "set_state_sink",
    "sim_now",
    "sync_nodes",
    "ticker",
    "update_cluster",
]
