"""moto extensions that make EKS behave like the real control plane Launchpod drives.

Stock moto 5.2.5 creates clusters ACTIVE at once, drops ``accessConfig``, deletes clusters instantly and
answers 404 for add-ons, access entries and pod identity. This module adds those, inside moto (same
backends, same endpoint, in-process and ThreadedMotoServer alike), using moto's own mechanism:

* an operation is a response method named after botocore's snake_case operation returning
  ``ActionResult(dict)`` (moto serialises it with botocore's output shape), plus, because EKS is a
  REST-JSON service, a URL regex in ``moto.eks.urls.url_paths``; moto's router then finds the operation
  and its path parameters from botocore's model, so request shapes are exactly what botocore sends;
* lifecycles are moto's ``ManagedState`` with ``time`` transitions in *simulated* seconds (cluster
  CREATING/UPDATING -> ACTIVE after 600, add-on CREATING/UPDATING -> ACTIVE after its own time within
  20-600 (``durations.ADDON_ROLLOUT_SECONDS``); scaled by
  ``sandbox.aws.clock``), overridable like any moto model (``/moto-api/state-manager``, models
  ``eks::cluster`` and ``eks::addon``). Deletions (cluster ~120 s, add-on ~30 s) keep the resource
  visible as DELETING until it expires. UpdateClusterConfig, UpdateClusterVersion and UpdateAddon
  return update records that DescribeUpdate/ListUpdates report InProgress until the resource is
  ACTIVE again;
* an add-on's health follows its workloads: once rolled out, an add-on that runs a Deployment is
  DEGRADED (health issue ``InsufficientNumberOfReplicas``) until the cluster has a Ready node that can
  host its replicas, seen through ``set_node_reader``; DaemonSet-only add-ons are ACTIVE with no nodes;
* Kubernetes versions and add-on versions come from one catalogue (``KUBERNETES_VERSIONS``,
  ``ADDON_CATALOG``): CreateCluster, CreateAddon and UpdateAddon refuse what it does not offer for the
  cluster's version, and DescribeAddonVersions serves it per Kubernetes version;
* configuration values are checked against the add-on's schema (DescribeAddonConfiguration serves it),
  and an add-on whose documented prerequisites are missing when it rolls out ends CREATE_FAILED with the
  error AWS documents (the HyperPod inference add-on without cert-manager and the S3 and FSx CSI drivers).

The cluster ``endpoint`` comes from ``set_kube_endpoint_provider`` so each cluster can point at its own
emulated Kubernetes API server. Call ``install()`` before the first EKS request (ThreadedMotoServer
builds its EKS app from ``url_paths`` on the first request).

The emulation is a package, one module a responsibility: ``durations`` (lifecycle times), ``common`` (the
lock, ids, errors, pagination), ``catalog`` (Kubernetes and add-on versions, access policies), ``nodes``
(the cluster's Nodes, for add-on health), ``models`` (cluster, add-on, update, access entry, pod identity
association), ``clusters``, ``access`` and ``addons`` (the operations), ``responses`` (moto response
methods and URL patterns) and ``backend`` (``install``). This module re-exports the public names.
"""

from __future__ import annotations

from sandbox.aws.eks.backend import install
from sandbox.aws.eks.catalog import (
    ACCESS_ENTRY_TYPES,
    ACCESS_POLICIES,
    ACCESS_POLICY_ARN,
    ADDON_CATALOG,
    ANY_OBJECT_SCHEMA,
    DEFAULT_KUBERNETES_VERSION,
    DEFAULT_PLATFORM_VERSION,
    KUBERNETES_VERSIONS,
    addon_versions,
    configuration_schema,
    default_addon_version,
    register_addon,
)
from sandbox.aws.eks.clusters import find_cluster, set_kube_endpoint_provider
from sandbox.aws.eks.common import validate_role_arn
from sandbox.aws.eks.durations import (
    ADDON_MODEL,
    ADDON_ROLLOUT_SECONDS,
    CLUSTER_MODEL,
    addon_rollout_seconds,
    register_transitions,
    set_addon_transition_seconds,
    set_cluster_creation_seconds,
    set_cluster_deletion_seconds,
)
from sandbox.aws.eks.models import AccessEntry, Addon, PodIdentityAssociation, SandboxCluster, Update
from sandbox.aws.eks.nodes import set_node_reader

__all__ = [
    "ACCESS_ENTRY_TYPES",
    "ACCESS_POLICIES",
    "ACCESS_POLICY_ARN",
    "ADDON_CATALOG",
    "ADDON_MODEL",
    "ADDON_ROLLOUT_SECONDS",
    "ANY_OBJECT_SCHEMA",
    "CLUSTER_MODEL",
    "DEFAULT_KUBERNETES_VERSION",
    "DEFAULT_PLATFORM_VERSION",
    "KUBERNETES_VERSIONS",
    "AccessEntry",
    "Addon",
    "PodIdentityAssociation",
    "SandboxCluster",
    "Update",
    "addon_rollout_seconds",
    "addon_versions",
    "configuration_schema",
    "default_addon_version",
    "find_cluster",
    "install",
    "register_addon",
    "register_transitions",
    "set_addon_transition_seconds",
    "set_cluster_creation_seconds",
    "set_cluster_deletion_seconds",
    "set_kube_endpoint_provider",
    "set_node_reader",
    "validate_role_arn",
]
