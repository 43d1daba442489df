"""EKS's contract: the in-memory fake (tests/fakes/eks.py) and adapters.aws.eks on the sandbox's EKS answer each
case alike: a cluster nobody created, a cluster's status, version and tags, its add-ons, the add-ons of a
cluster that does not exist, and the versions offered of an add-on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from launchpod.adapters.aws.eks import Eks as EksAdapter
from launchpod.domain import dependencies
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.errors import Conflict, NotFound

import sandbox.aws
from sandbox.aws.eks.catalog import INFERENCE_SCHEMA
from tests.fakes.eks import Eks
from tests.sandbox.aws.support import ROLE_ARN, wait_until

VERSION = "1.32"
INFERENCE = "amazon-sagemaker-hyperpod-inference"
TAGS = {"launchpod:cluster": "train"}
SUBNETS, GROUPS = ["subnet-a", "subnet-b"], ["sg-1"]
# What a cluster and an add-on come to, made the way each side makes them: (cluster name) and (cluster, add-on);
# and an add-on's creation finishing (cluster, add-on).
Side = tuple[Any, Callable[[str], None], Callable[[str, str], None], Callable[[str, str], None]]
METRICS = (["v0.8.1-eksbuild.1", "v0.8.0-eksbuild.2", "v0.8.0-eksbuild.1"], "v0.8.1-eksbuild.1")  # EKS's offer


@pytest.fixture(params=["fake", "eks"])
def side(request: pytest.FixtureRequest) -> Side:
    if request.param == "fake":
        fake = Eks(offered={"metrics-server": METRICS})
        fake.schemas[INFERENCE] = INFERENCE_SCHEMA  # what EKS publishes for it (the sandbox serves AWS's pages)

        def create_fake(name: str) -> None:
            fake.clusters[name] = {
                "name": name,
                "arn": f"arn:aws:eks:us-east-1:123456789012:cluster/{name}",
                "status": "ACTIVE",
                "version": VERSION,
                "resourcesVpcConfig": {"subnetIds": SUBNETS, "securityGroupIds": GROUPS},
                "tags": TAGS,
            }

        def install_fake(cluster: str, addon: str) -> None:
            fake.addon_map.setdefault(cluster, {})[addon] = {"addonName": addon, "clusterName": cluster}

        def settle_fake(cluster: str, addon: str) -> None:
            fake.addon_map[cluster][addon]["status"] = "ACTIVE"

        return fake, create_fake, install_fake, settle_fake
    eks = request.getfixturevalue("client")("eks")

    def create(name: str) -> None:
        sandbox.aws.set_cluster_creation_seconds(0)
        eks.create_cluster(
            name=name,
            version=VERSION,
            roleArn=ROLE_ARN,
            resourcesVpcConfig={"subnetIds": SUBNETS, "securityGroupIds": GROUPS},
            tags=TAGS,
        )
        wait_until(lambda: eks.describe_cluster(name=name)["cluster"]["status"] == "ACTIVE", reason="not ACTIVE")

    def install(cluster: str, addon: str) -> None:
        eks.create_addon(clusterName=cluster, addonName=addon)

    def settle(cluster: str, addon: str) -> None:
        # ACTIVE, or DEGRADED on a cluster with no nodes to run it: either way no longer CREATING
        wait_until(
            lambda: eks.describe_addon(clusterName=cluster, addonName=addon)["addon"]["status"] != "CREATING",
            reason=f"{addon} still CREATING",
        )

    sandbox.aws.set_addon_transition_seconds(200)  # 2 s at the tests' time scale: CREATING is seen
    return EksAdapter(), create, install, settle


def test_a_cluster_nobody_created_reads_as_none_and_is_not_listed(side: Side) -> None:
    assert side[0].cluster("ghost") is None
    assert side[0].cluster_names() == set()


def test_created_clusters_are_listed_by_name(side: Side) -> None:
    eks, create, *_ = side
    create("train")
    create("infer")
    assert eks.cluster_names() == {"train", "infer"}


def test_a_cluster_reads_with_its_arn_status_version_network_and_tags(side: Side) -> None:
    eks, create, *_ = side
    create("train")
    found = eks.cluster("train")
    assert isinstance(found, EksCluster)
    assert (found.name, found.status, found.version, found.tags) == ("train", "ACTIVE", VERSION, TAGS)
    assert found.arn.startswith("arn:aws:eks:") and found.arn.endswith(":cluster/train")
    assert (found.subnet_ids, found.security_group_ids) == (tuple(SUBNETS), tuple(GROUPS))


def test_a_clusters_addons_are_by_name_and_a_cluster_without_any_has_none(side: Side) -> None:
    eks, create, install, _ = side
    create("train")
    assert eks.addons("train") == {}
    install("train", "vpc-cni")
    addons = eks.addons("train")
    assert list(addons) == ["vpc-cni"] and isinstance(addons["vpc-cni"], EksAddon)
    assert addons["vpc-cni"].name == "vpc-cni"


def test_the_addons_of_a_cluster_that_does_not_exist_are_not_found(side: Side) -> None:
    with pytest.raises(NotFound):
        side[0].addons("ghost")


def test_an_addon_eks_does_not_offer_has_no_versions(side: Side) -> None:
    assert side[0].addon_versions("not-an-addon", VERSION) == ([], None)


@pytest.mark.parametrize("addon", [a.name for a in dependencies.manifest().addons])
def test_a_pinned_addon_is_offered_with_its_pin_and_a_default_among_the_versions(side: Side, addon: str) -> None:
    versions, default = side[0].addon_versions(addon, VERSION)
    pin = next(a.version for a in dependencies.manifest().addons if a.name == addon)
    assert pin in versions and default in versions


def test_an_addon_is_created_at_a_version_with_its_tags_and_updated_to_another_once_active(side: Side) -> None:
    eks, create, _, settle = side
    create("train")
    offered, default = eks.addon_versions("metrics-server", VERSION)
    assert (offered, default) == METRICS
    eks.create_addon("train", "metrics-server", TAGS, offered[1])
    created = eks.addons("train")["metrics-server"]
    assert (created.name, created.status, created.version, created.tags) == (
        "metrics-server",
        "CREATING",
        offered[1],
        TAGS,
    )
    assert (created.issues, created.pod_identity_associations, created.configuration) == ((), (), {})
    with pytest.raises(Conflict, match="ResourceInUseException: Addon metrics-server is in CREATING state"):
        eks.update_addon("train", "metrics-server", default)
    settle("train", "metrics-server")
    eks.update_addon("train", "metrics-server", default)
    assert eks.addons("train")["metrics-server"].version == default


def test_an_addon_created_without_a_version_gets_the_default_offered(side: Side) -> None:
    eks, create, *_ = side
    create("train")
    eks.create_addon("train", "metrics-server", TAGS)
    assert eks.addons("train")["metrics-server"].version == METRICS[1]


def test_a_deleted_addon_goes_and_a_second_delete_answers_it_was_gone(side: Side) -> None:
    eks, create, install, _ = side
    create("train")
    install("train", "vpc-cni")
    assert eks.delete_addon("train", "vpc-cni") is True
    gone = eks.addons("train").get("vpc-cni")
    assert gone is None or gone.status == "DELETING"
    assert eks.delete_addon("train", "kube-proxy") is False


def test_an_addons_configuration_schema_is_read_as_a_mapping(side: Side) -> None:
    eks = side[0]
    version = eks.addon_versions(INFERENCE, VERSION)[1]
    assert version is not None
    schema = eks.addon_configuration_schema(INFERENCE, version)
    assert schema == INFERENCE_SCHEMA and schema.get("type") == "object"


def test_an_addons_configuration_values_and_pod_identity_read_back_as_given(side: Side) -> None:
    eks, create, *_ = side
    create("train")
    values = {"ampWorkspace": {"prometheusEndpoint": "https://aps.example/workspaces/ws-1/"}}
    role = "arn:aws:iam::123456789012:role/metrics"
    eks.create_addon("train", "metrics-server", TAGS, METRICS[1], ("metrics-server", role), values)
    created = eks.addons("train")["metrics-server"]
    assert created.configuration == values
    assert len(created.pod_identity_associations) == 1
    assert created.pod_identity_associations[0].startswith("arn:aws:eks:")
