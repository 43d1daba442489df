"""EKS extensions: cluster lifecycle and fields, add-ons, access entries, pod identity associations."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

import sandbox.aws
from sandbox.aws import eks as eks_ext
from tests.sandbox.aws.support import ROLE_ARN, wait_until

VPC = {"subnetIds": ["subnet-a", "subnet-b"], "securityGroupIds": ["sg-1"]}
ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
VIEW_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
PRINCIPAL = "arn:aws:iam::123456789012:role/launchpod/control-plane"


@pytest.fixture
def eks(client: Any) -> Any:
    return client("eks")


def _create(eks: Any, name: str = "c1", **extra: Any) -> dict[str, Any]:
    return eks.create_cluster(name=name, roleArn=ROLE_ARN, resourcesVpcConfig=VPC, **extra)["cluster"]


@pytest.fixture
def active_cluster(eks: Any) -> str:
    """An ACTIVE cluster with API_AND_CONFIG_MAP authentication (creation shortened to 0 s)."""
    sandbox.aws.set_cluster_creation_seconds(0)
    _create(eks, accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"})
    wait_until(lambda: eks.describe_cluster(name="c1")["cluster"]["status"] == "ACTIVE")
    sandbox.aws.set_cluster_creation_seconds(600)
    return "c1"


def _node(name: str = "hyperpod-i-1", ready: bool = True, taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"taints": taints or []},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "Unknown"}]},
    }


@pytest.fixture
def nodes() -> list[dict[str, Any]]:
    """The Kubernetes Nodes the sandbox's EKS sees in every cluster (empty until a test adds some)."""
    found: list[dict[str, Any]] = []
    sandbox.aws.set_node_reader(lambda cluster: found)
    return found


def _error(exc_info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = exc_info.value.response["Error"]
    return error["Code"], error["Message"]


# ---------------------------------------------------------------------------------------- clusters


def test_cluster_is_creating_until_ten_simulated_minutes_pass(eks, time_scale):
    eks.list_clusters()  # load the EKS model first so the CREATING window is not spent on it
    time_scale(0.005)  # 600 simulated seconds last 3 s: room for a loaded CI machine
    started = time.monotonic()

    assert _create(eks)["status"] == "CREATING"
    for _ in range(5):  # time-based, not advanced by describing
        assert eks.describe_cluster(name="c1")["cluster"]["status"] == "CREATING"

    wait_until(lambda: eks.describe_cluster(name="c1")["cluster"]["status"] == "ACTIVE", timeout=60)
    assert sandbox.aws.sim_seconds_elapsed(started) >= 600


def test_cluster_creation_time_is_configurable_in_simulated_seconds(eks):
    sandbox.aws.set_cluster_creation_seconds(500)  # 5 s at the suite's scale: a loaded machine still sees CREATING
    _create(eks)
    assert eks.describe_cluster(name="c1")["cluster"]["status"] == "CREATING"
    wait_until(lambda: eks.describe_cluster(name="c1")["cluster"]["status"] == "ACTIVE", timeout=60)


def test_cluster_keeps_access_config_logging_version_and_tags(eks):
    logging = {"clusterLogging": [{"types": ["api", "audit"], "enabled": True}]}
    created = _create(
        eks,
        version="1.33",
        tags={"team": "ml"},
        logging=logging,
        accessConfig={"bootstrapClusterCreatorAdminPermissions": False},
    )

    described = eks.describe_cluster(name="c1")["cluster"]
    for cluster in (created, described):
        assert cluster["accessConfig"] == {
            "bootstrapClusterCreatorAdminPermissions": False,
            "authenticationMode": "API_AND_CONFIG_MAP",
        }
        assert cluster["version"] == "1.33"
        assert cluster["tags"] == {"team": "ml"}
        assert cluster["logging"] == logging


def test_cluster_without_access_config_uses_config_map_authentication(eks):
    assert _create(eks)["accessConfig"]["authenticationMode"] == "CONFIG_MAP"


def test_cluster_has_a_pem_certificate_authority_and_its_own_oidc_issuer(eks):
    first, second = _create(eks, name="a"), _create(eks, name="b")

    pem = base64.b64decode(first["certificateAuthority"]["data"], validate=True)
    assert pem.startswith(b"-----BEGIN CERTIFICATE-----")
    assert first["identity"]["oidc"]["issuer"].startswith("https://oidc.eks.us-east-1.amazonaws.com/id/")
    assert first["identity"]["oidc"]["issuer"] != second["identity"]["oidc"]["issuer"]


def test_endpoint_comes_from_the_kube_endpoint_provider(eks):
    asked: list[str] = []

    def provider(name: str, version: str) -> str:
        asked.append(f"{name} {version}")
        return "http://127.0.0.1:41234"

    sandbox.aws.set_kube_endpoint_provider(provider)

    assert _create(eks, name="hp-eks")["endpoint"] == "http://127.0.0.1:41234"
    assert eks.describe_cluster(name="hp-eks")["cluster"]["endpoint"] == "http://127.0.0.1:41234"
    assert asked == [f"hp-eks {eks_ext.DEFAULT_KUBERNETES_VERSION}"]


def test_without_a_provider_the_endpoint_is_an_eks_url(eks):
    assert _create(eks)["endpoint"].startswith("https://")


def test_deleted_cluster_is_deleting_then_gone_with_its_addons(eks, active_cluster):
    eks.create_addon(clusterName=active_cluster, addonName="vpc-cni")
    sandbox.aws.set_cluster_deletion_seconds(150)  # 1.5 s

    assert eks.delete_cluster(name=active_cluster)["cluster"]["status"] == "DELETING"
    assert eks.describe_cluster(name=active_cluster)["cluster"]["status"] == "DELETING"
    assert eks.list_addons(clusterName=active_cluster)["addons"] == []

    def gone() -> bool:
        try:
            eks.describe_cluster(name=active_cluster)
        except ClientError as exc:
            return exc.response["Error"]["Code"] == "ResourceNotFoundException"
        return False

    wait_until(gone, timeout=60)
    assert active_cluster not in eks.list_clusters()["clusters"]


def test_deleting_cluster_blocks_a_new_cluster_of_the_same_name(eks, active_cluster):
    eks.delete_cluster(name=active_cluster)
    with pytest.raises(ClientError) as exc_info:
        _create(eks, name=active_cluster)
    assert _error(exc_info)[0] == "ResourceInUseException"


# ---------------------------------------------------------------------------------------- add-ons


def test_addon_on_a_creating_cluster_is_refused(eks):
    _create(eks)
    with pytest.raises(ClientError) as exc_info:
        eks.create_addon(clusterName="c1", addonName="vpc-cni")
    assert _error(exc_info) == ("InvalidRequestException", "Cluster is in CREATING state")


def test_addon_is_creating_then_active_after_its_rollout_time(eks, active_cluster, time_scale, nodes):
    nodes.append(_node())
    time_scale(0.02)  # the slowest rollout, 600 simulated seconds, lasts 12 s
    addon = eks.create_addon(
        clusterName=active_cluster,
        addonName="aws-mountpoint-s3-csi-driver",
        serviceAccountRoleArn=ROLE_ARN,
        configurationValues='{"node": {"tolerateAllTaints": true}}',
        tags={"owner": "launchpod"},
    )["addon"]

    assert addon["status"] == "CREATING"
    assert addon["addonVersion"] == eks_ext.default_addon_version("aws-mountpoint-s3-csi-driver", "1.34")
    assert (
        eks.describe_addon(clusterName=active_cluster, addonName="aws-mountpoint-s3-csi-driver")["addon"]["status"]
        == "CREATING"
    )
    wait_until(
        lambda: (
            eks.describe_addon(clusterName=active_cluster, addonName="aws-mountpoint-s3-csi-driver")["addon"]["status"]
            == "ACTIVE"
        ),
        timeout=60,
    )

    described = eks.describe_addon(clusterName=active_cluster, addonName="aws-mountpoint-s3-csi-driver")["addon"]
    assert described["serviceAccountRoleArn"] == ROLE_ARN
    assert described["configurationValues"] == '{"node": {"tolerateAllTaints": true}}'
    assert described["tags"] == {"owner": "launchpod"}
    assert eks.list_addons(clusterName=active_cluster)["addons"] == ["aws-mountpoint-s3-csi-driver"]


@pytest.mark.parametrize(
    "name",
    [
        "vpc-cni",
        "coredns",
        "kube-proxy",
        "eks-pod-identity-agent",
        "cert-manager",
        "aws-mountpoint-s3-csi-driver",
        "aws-fsx-csi-driver",
        "metrics-server",
        "amazon-cloudwatch-observability",
        "amazon-sagemaker-hyperpod-training-operator",
        "amazon-sagemaker-hyperpod-inference",
    ],
)
def test_every_addon_launchpod_installs_has_a_default_version(eks, name):
    addons = eks.describe_addon_versions(addonName=name, kubernetesVersion="1.34")["addons"]

    assert [a["addonName"] for a in addons] == [name]
    version = addons[0]["addonVersions"][0]
    assert version["addonVersion"].startswith("v")
    assert version["compatibilities"][0] == {
        "clusterVersion": "1.34",
        "platformVersions": ["*"],
        "defaultVersion": True,
    }


def test_addon_with_an_explicit_version_keeps_it(eks, active_cluster):
    addon = eks.create_addon(clusterName=active_cluster, addonName="coredns", addonVersion="v1.12.4-eksbuild.1")
    assert addon["addon"]["addonVersion"] == "v1.12.4-eksbuild.1"


def test_duplicate_addon_is_resource_in_use(eks, active_cluster):
    eks.create_addon(clusterName=active_cluster, addonName="vpc-cni")
    with pytest.raises(ClientError) as exc_info:
        eks.create_addon(clusterName=active_cluster, addonName="vpc-cni")
    assert _error(exc_info)[0] == "ResourceInUseException"


def test_unknown_cluster_or_addon_is_resource_not_found(eks, active_cluster):
    with pytest.raises(ClientError) as on_cluster:
        eks.create_addon(clusterName="nope", addonName="vpc-cni")
    with pytest.raises(ClientError) as on_addon:
        eks.describe_addon(clusterName=active_cluster, addonName="coredns")
    assert _error(on_cluster) == ("ResourceNotFoundException", "No cluster found for name: nope.")
    assert _error(on_addon)[0] == "ResourceNotFoundException"


def test_unsupported_addon_name_is_an_invalid_parameter(eks, active_cluster):
    with pytest.raises(ClientError) as exc_info:
        eks.create_addon(clusterName=active_cluster, addonName="vpc-cnii")
    assert _error(exc_info)[0] == "InvalidParameterException"


def test_addon_update_is_tracked_until_the_addon_is_active_again(eks, active_cluster, nodes):
    nodes.append(_node())
    sandbox.aws.set_addon_transition_seconds(0)
    eks.create_addon(clusterName=active_cluster, addonName="metrics-server", addonVersion="v0.8.0-eksbuild.2")
    wait_until(
        lambda: (
            eks.describe_addon(clusterName=active_cluster, addonName="metrics-server")["addon"]["status"] == "ACTIVE"
        )
    )
    sandbox.aws.set_addon_transition_seconds(150)  # 1.5 s

    update = eks.update_addon(
        clusterName=active_cluster,
        addonName="metrics-server",
        addonVersion="v0.8.1-eksbuild.1",
        configurationValues='{"replicas": 2}',
    )["update"]

    assert update["type"] == "AddonUpdate"
    assert update["status"] == "InProgress"
    assert {"type": "AddonVersion", "value": "v0.8.1-eksbuild.1"} in update["params"]
    assert eks.describe_addon(clusterName=active_cluster, addonName="metrics-server")["addon"]["status"] == "UPDATING"
    wait_until(
        lambda: (
            eks.describe_update(name=active_cluster, updateId=update["id"], addonName="metrics-server")["update"][
                "status"
            ]
            == "Successful"
        ),
        timeout=60,
    )
    described = eks.describe_addon(clusterName=active_cluster, addonName="metrics-server")["addon"]
    assert described["status"] == "ACTIVE"
    assert described["addonVersion"] == "v0.8.1-eksbuild.1"
    assert described["configurationValues"] == '{"replicas": 2}'


def test_deleted_addon_is_deleting_then_gone(eks, active_cluster):
    eks.create_addon(clusterName=active_cluster, addonName="cert-manager")

    assert eks.delete_addon(clusterName=active_cluster, addonName="cert-manager")["addon"]["status"] == "DELETING"

    def gone() -> bool:
        return eks.list_addons(clusterName=active_cluster)["addons"] == []

    wait_until(gone, timeout=60)  # 30 simulated seconds
    with pytest.raises(ClientError) as exc_info:
        eks.describe_addon(clusterName=active_cluster, addonName="cert-manager")
    assert _error(exc_info)[0] == "ResourceNotFoundException"


def test_addon_pod_identity_associations_are_created_and_owned_by_the_addon(eks, active_cluster):
    addon = eks.create_addon(
        clusterName=active_cluster,
        addonName="amazon-cloudwatch-observability",
        podIdentityAssociations=[{"serviceAccount": "cloudwatch-agent", "roleArn": ROLE_ARN}],
    )["addon"]

    associations = eks.list_pod_identity_associations(clusterName=active_cluster)["associations"]
    assert len(associations) == 1
    assert addon["podIdentityAssociations"] == [associations[0]["associationArn"]]
    assert associations[0]["namespace"] == "amazon-cloudwatch"
    assert associations[0]["serviceAccount"] == "cloudwatch-agent"
    assert associations[0]["ownerArn"] == addon["addonArn"]


# ---------------------------------------------------------------------------------------- access entries


def test_access_entry_lifecycle_with_policies(eks, active_cluster):
    entry = eks.create_access_entry(
        clusterName=active_cluster,
        principalArn=PRINCIPAL,
        kubernetesGroups=["launchpod-admins"],
        tags={"k": "v"},
    )["accessEntry"]
    assert entry["type"] == "STANDARD"
    assert entry["username"] == "arn:aws:sts::123456789012:assumed-role/control-plane/{{SessionName}}"
    assert entry["accessEntryArn"].startswith(f"arn:aws:eks:us-east-1:123456789012:access-entry/{active_cluster}/role/")

    eks.associate_access_policy(
        clusterName=active_cluster,
        principalArn=PRINCIPAL,
        policyArn=ADMIN_POLICY,
        accessScope={"type": "cluster"},
    )
    eks.associate_access_policy(
        clusterName=active_cluster,
        principalArn=PRINCIPAL,
        policyArn=VIEW_POLICY,
        accessScope={"type": "namespace", "namespaces": ["hyperpod"]},
    )

    described = eks.describe_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)["accessEntry"]
    assert described["kubernetesGroups"] == ["launchpod-admins"]
    assert eks.list_access_entries(clusterName=active_cluster)["accessEntries"] == [PRINCIPAL]
    assert eks.list_access_entries(clusterName=active_cluster, associatedPolicyArn=VIEW_POLICY)["accessEntries"] == [
        PRINCIPAL
    ]
    policies = eks.list_associated_access_policies(clusterName=active_cluster, principalArn=PRINCIPAL)[
        "associatedAccessPolicies"
    ]
    assert {p["policyArn"]: p["accessScope"] for p in policies} == {
        ADMIN_POLICY: {"type": "cluster", "namespaces": []},
        VIEW_POLICY: {"type": "namespace", "namespaces": ["hyperpod"]},
    }

    eks.disassociate_access_policy(clusterName=active_cluster, principalArn=PRINCIPAL, policyArn=VIEW_POLICY)
    remaining = eks.list_associated_access_policies(clusterName=active_cluster, principalArn=PRINCIPAL)
    assert [p["policyArn"] for p in remaining["associatedAccessPolicies"]] == [ADMIN_POLICY]

    eks.delete_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)
    assert eks.list_access_entries(clusterName=active_cluster)["accessEntries"] == []
    with pytest.raises(ClientError) as exc_info:
        eks.describe_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)
    assert _error(exc_info)[0] == "ResourceNotFoundException"


def test_hyperpod_node_access_entry_keeps_its_type(eks, active_cluster):
    role = "arn:aws:iam::123456789012:role/hyperpod-execution"
    entry = eks.create_access_entry(clusterName=active_cluster, principalArn=role, type="HYPERPOD_LINUX")

    assert entry["accessEntry"]["type"] == "HYPERPOD_LINUX"
    assert eks.describe_access_entry(clusterName=active_cluster, principalArn=role)["accessEntry"]["type"] == (
        "HYPERPOD_LINUX"
    )


def test_duplicate_access_entry_is_resource_in_use(eks, active_cluster):
    eks.create_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)
    with pytest.raises(ClientError) as exc_info:
        eks.create_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)
    assert _error(exc_info)[0] == "ResourceInUseException"


def test_access_entries_need_api_authentication(eks):
    sandbox.aws.set_cluster_creation_seconds(0)
    _create(eks)  # no accessConfig: CONFIG_MAP
    with pytest.raises(ClientError) as exc_info:
        eks.create_access_entry(clusterName="c1", principalArn=PRINCIPAL)
    code, message = _error(exc_info)
    assert code == "InvalidRequestException"
    assert "API_AND_CONFIG_MAP" in message


def test_namespace_scope_without_namespaces_is_invalid(eks, active_cluster):
    eks.create_access_entry(clusterName=active_cluster, principalArn=PRINCIPAL)
    with pytest.raises(ClientError) as exc_info:
        eks.associate_access_policy(
            clusterName=active_cluster,
            principalArn=PRINCIPAL,
            policyArn=VIEW_POLICY,
            accessScope={"type": "namespace"},
        )
    assert _error(exc_info)[0] == "InvalidParameterException"


def test_access_policies_are_listed(eks):
    names = [p["name"] for p in eks.list_access_policies()["accessPolicies"]]
    assert "AmazonEKSClusterAdminPolicy" in names


# ---------------------------------------------------------------------------------------- pod identity


def test_pod_identity_association_lifecycle(eks, active_cluster):
    created = eks.create_pod_identity_association(
        clusterName=active_cluster,
        namespace="kube-system",
        serviceAccount="s3-csi-driver-sa",
        roleArn=ROLE_ARN,
    )["association"]
    association_id = created["associationId"]
    assert association_id.startswith("a-")
    assert created["associationArn"].endswith(f":podidentityassociation/{active_cluster}/{association_id}")

    described = eks.describe_pod_identity_association(clusterName=active_cluster, associationId=association_id)
    assert described["association"]["roleArn"] == ROLE_ARN
    listed = eks.list_pod_identity_associations(clusterName=active_cluster, namespace="kube-system")["associations"]
    assert [a["associationId"] for a in listed] == [association_id]
    assert eks.list_pod_identity_associations(clusterName=active_cluster, namespace="other")["associations"] == []

    eks.delete_pod_identity_association(clusterName=active_cluster, associationId=association_id)
    with pytest.raises(ClientError) as exc_info:
        eks.describe_pod_identity_association(clusterName=active_cluster, associationId=association_id)
    assert _error(exc_info)[0] == "ResourceNotFoundException"


def test_second_association_for_the_same_service_account_is_resource_in_use(eks, active_cluster):
    eks.create_pod_identity_association(
        clusterName=active_cluster, namespace="ns", serviceAccount="sa", roleArn=ROLE_ARN
    )
    with pytest.raises(ClientError) as exc_info:
        eks.create_pod_identity_association(
            clusterName=active_cluster, namespace="ns", serviceAccount="sa", roleArn=ROLE_ARN
        )
    assert _error(exc_info)[0] == "ResourceInUseException"


# ---------------------------------------------------------------------------------------- cluster updates


def test_authentication_mode_moves_towards_api_through_a_tracked_update(eks):
    sandbox.aws.set_cluster_creation_seconds(0)
    _create(eks)  # CONFIG_MAP
    wait_until(lambda: eks.describe_cluster(name="c1")["cluster"]["status"] == "ACTIVE")
    sandbox.aws.set_cluster_creation_seconds(150)  # UPDATING lasts 1.5 s

    update = eks.update_cluster_config(name="c1", accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"})["update"]

    assert update["type"] == "AccessConfigUpdate"
    assert update["status"] == "InProgress"
    assert eks.describe_cluster(name="c1")["cluster"]["status"] == "UPDATING"
    assert eks.list_updates(name="c1")["updateIds"] == [update["id"]]
    wait_until(
        lambda: eks.describe_update(name="c1", updateId=update["id"])["update"]["status"] == "Successful",
        timeout=60,
    )
    cluster = eks.describe_cluster(name="c1")["cluster"]
    assert cluster["status"] == "ACTIVE"
    assert cluster["accessConfig"]["authenticationMode"] == "API_AND_CONFIG_MAP"
    with pytest.raises(ClientError) as exc_info:
        eks.update_cluster_config(name="c1", accessConfig={"authenticationMode": "CONFIG_MAP"})
    assert _error(exc_info)[0] == "InvalidParameterException"


def test_deletion_protection_blocks_delete(eks, active_cluster):
    sandbox.aws.set_cluster_creation_seconds(0)
    eks.update_cluster_config(name=active_cluster, deletionProtection=True)
    wait_until(lambda: eks.describe_cluster(name=active_cluster)["cluster"]["status"] == "ACTIVE")

    with pytest.raises(ClientError) as exc_info:
        eks.delete_cluster(name=active_cluster)

    assert _error(exc_info)[0] == "InvalidRequestException"
    assert eks.describe_cluster(name=active_cluster)["cluster"]["deletionProtection"] is True


def test_cluster_security_group_is_created_in_the_subnets_vpc(client, eks):
    ec2 = client("ec2")
    vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=zone)["Subnet"]["SubnetId"]
        for cidr, zone in (("10.0.0.0/20", "us-east-1a"), ("10.0.16.0/20", "us-east-1b"))
    ]

    vpc_config = eks.create_cluster(name="c1", roleArn=ROLE_ARN, resourcesVpcConfig={"subnetIds": subnets})["cluster"][
        "resourcesVpcConfig"
    ]

    assert vpc_config["vpcId"] == vpc_id
    assert vpc_config["endpointPublicAccess"] is True
    groups = ec2.describe_security_groups(GroupIds=[vpc_config["clusterSecurityGroupId"]])["SecurityGroups"]
    assert groups[0]["VpcId"] == vpc_id
    assert groups[0]["GroupName"].startswith("eks-cluster-sg-c1-")


# ---------------------------------------------------------------------------- add-on health and versions


def _settled(eks: Any, cluster: str, name: str) -> dict[str, Any]:
    """The add-on once its rollout is over (no longer CREATING/UPDATING)."""
    return wait_until(
        lambda: (
            (a := eks.describe_addon(clusterName=cluster, addonName=name)["addon"])["status"]
            not in ("CREATING", "UPDATING")
            and a
        )
    )


def test_daemonset_addons_are_active_on_a_cluster_without_nodes(eks, active_cluster, nodes):
    sandbox.aws.set_addon_transition_seconds(0)
    for name in ("vpc-cni", "kube-proxy", "eks-pod-identity-agent"):
        eks.create_addon(clusterName=active_cluster, addonName=name)
        addon = _settled(eks, active_cluster, name)
        assert (addon["status"], addon["health"]["issues"]) == ("ACTIVE", []), name


def test_deployment_addon_is_degraded_without_nodes_and_active_once_a_ready_node_joins(eks, active_cluster, nodes):
    sandbox.aws.set_addon_transition_seconds(0)
    eks.create_addon(clusterName=active_cluster, addonName="coredns")

    degraded = _settled(eks, active_cluster, "coredns")
    assert degraded["status"] == "DEGRADED"
    assert [i["code"] for i in degraded["health"]["issues"]] == ["InsufficientNumberOfReplicas"]
    assert "desired number of replicas" in degraded["health"]["issues"][0]["message"]

    # a node that is not Ready, or that is tainted against the replicas, hosts nothing
    nodes.append(_node("hyperpod-i-1", ready=False))
    nodes.append(_node("hyperpod-i-2", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]))
    assert eks.describe_addon(clusterName=active_cluster, addonName="coredns")["addon"]["status"] == "DEGRADED"

    nodes.append(_node("hyperpod-i-3"))
    active = eks.describe_addon(clusterName=active_cluster, addonName="coredns")["addon"]
    assert (active["status"], active["health"]["issues"]) == ("ACTIVE", [])


def test_addon_versions_are_served_per_kubernetes_version(eks):
    def offered(kubernetes_version: str) -> list[str]:
        found = eks.describe_addon_versions(addonName="kube-proxy", kubernetesVersion=kubernetes_version)
        return [v["addonVersion"] for a in found["addons"] for v in a["addonVersions"]]

    assert all(v.startswith("v1.33.") for v in offered("1.33")) and offered("1.33")
    assert all(v.startswith("v1.34.") for v in offered("1.34")) and offered("1.34")
    assert offered("1.31") == []


def test_addon_version_not_offered_for_the_cluster_version_is_an_invalid_parameter(eks, active_cluster):
    with pytest.raises(ClientError) as unknown:
        eks.create_addon(clusterName=active_cluster, addonName="coredns", addonVersion="v9.9.9-eksbuild.1")
    with pytest.raises(ClientError) as older_kubernetes:  # a coredns build for 1.32 only, on a 1.34 cluster
        eks.create_addon(clusterName=active_cluster, addonName="coredns", addonVersion="v1.11.4-eksbuild.33")
    for error in (unknown, older_kubernetes):
        assert _error(error) == ("InvalidParameterException", "Addon version specified is not supported")
    assert eks.list_addons(clusterName=active_cluster)["addons"] == []


def test_addon_update_to_a_version_not_offered_is_refused(eks, active_cluster):
    sandbox.aws.set_addon_transition_seconds(0)
    eks.create_addon(clusterName=active_cluster, addonName="metrics-server", addonVersion="v0.8.0-eksbuild.2")
    _settled(eks, active_cluster, "metrics-server")

    with pytest.raises(ClientError) as unknown:
        eks.update_addon(clusterName=active_cluster, addonName="metrics-server", addonVersion="v0.9.9-eksbuild.1")

    assert _error(unknown) == ("InvalidParameterException", "Addon version specified is not supported")
    addon = eks.describe_addon(clusterName=active_cluster, addonName="metrics-server")["addon"]
    assert addon["addonVersion"] == "v0.8.0-eksbuild.2"


def test_cluster_at_a_kubernetes_version_eks_no_longer_offers_is_refused(eks):
    with pytest.raises(ClientError) as exc_info:
        _create(eks, version="1.31")
    code, message = _error(exc_info)
    assert code == "InvalidParameterException" and "1.31" in message and "1.34" in message
    assert eks.list_clusters()["clusters"] == []


def test_the_sandbox_eks_offers_every_version_launchpod_creates_with_every_addon_it_installs():
    from launchpod.contracts.common import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
    from launchpod.domain import dependencies
    from launchpod.domain.clusters import control_plane

    assert DEFAULT_KUBERNETES_VERSION == eks_ext.DEFAULT_KUBERNETES_VERSION
    for version in SUPPORTED_KUBERNETES_VERSIONS:
        assert version in eks_ext.KUBERNETES_VERSIONS
        for name in control_plane.CORE_ADDONS:
            assert eks_ext.default_addon_version(name, version), (name, version)
        for entry in dependencies.manifest().addons:  # each is offered (the pin itself is Launchpod's to resolve)
            assert eks_ext.default_addon_version(entry.name, version), (entry.name, version)


# ------------------------------------------------------------------ rollout times, configuration, prerequisites

INFERENCE = "amazon-sagemaker-hyperpod-inference"
INFERENCE_VALUES = (
    '{"executionRoleArn": "arn:aws:iam::123456789012:role/launchpod-c1-inference-operator", '
    '"tlsCertificateS3Bucket": "sagemaker-launchpod-tls"}'
)


def test_addon_rollout_times_spread_over_the_documented_range_and_repeat_for_the_same_addon():
    low, high = eks_ext.ADDON_ROLLOUT_SECONDS
    times = {name: eks_ext.addon_rollout_seconds("c1", name) for name in eks_ext.ADDON_CATALOG}

    assert all(low <= t <= high for t in times.values())
    assert len(set(times.values())) == len(times)  # not one fixed minute for every add-on
    assert max(times.values()) - min(times.values()) > (high - low) / 2
    assert eks_ext.addon_rollout_seconds("c1", "coredns") == times["coredns"]
    assert eks_ext.addon_rollout_seconds("c2", "coredns") != times["coredns"]


def test_launchpods_addon_waits_hold_at_the_slow_end_of_a_rollout():
    from launchpod.domain import dependencies, features
    from launchpod.domain.clusters import control_plane, provision

    slowest = eks_ext.ADDON_ROLLOUT_SECONDS[1]
    assert slowest <= control_plane.MAX_ADDON_POLLS * control_plane.ADDON_POLL_SECONDS
    assert slowest <= provision.MAX_ADDON_POLLS * provision.ADDON_POLL_SECONDS
    assert slowest <= dependencies.MAX_POLLS * dependencies.POLL_SECONDS
    assert slowest <= features.MAX_POLLS * features.POLL_SECONDS


def test_describe_addon_configuration_serves_the_inference_addons_required_values(eks):
    import json

    version = eks_ext.default_addon_version(INFERENCE, "1.34")
    found = eks.describe_addon_configuration(addonName=INFERENCE, addonVersion=version)
    schema = json.loads(found["configurationSchema"])

    assert (found["addonName"], found["addonVersion"]) == (INFERENCE, version)
    assert schema["required"] == ["executionRoleArn", "tlsCertificateS3Bucket"]
    assert {"hyperpodClusterArn", "alb", "keda"} <= set(schema["properties"])
    offered = eks.describe_addon_versions(addonName=INFERENCE, kubernetesVersion="1.34")["addons"][0]
    assert offered["addonVersions"][0]["requiresConfiguration"] is True
    with pytest.raises(ClientError) as unknown:
        eks.describe_addon_configuration(addonName=INFERENCE, addonVersion="v9.9.9-eksbuild.1")
    assert _error(unknown)[0] == "InvalidParameterException"


def test_inference_addon_without_its_required_values_is_refused(eks, active_cluster):
    with pytest.raises(ClientError) as without:
        eks.create_addon(clusterName=active_cluster, addonName=INFERENCE)
    with pytest.raises(ClientError) as half:
        eks.create_addon(
            clusterName=active_cluster,
            addonName=INFERENCE,
            configurationValues='{"executionRoleArn": "arn:aws:iam::123456789012:role/x"}',
        )

    prefix = "ConfigurationValue provided in request is not supported: Json schema validation failed with error: "
    assert _error(without) == (
        "InvalidParameterException",
        prefix + "[$.executionRoleArn: is missing but it is required, "
        "$.tlsCertificateS3Bucket: is missing but it is required]",
    )
    assert _error(half)[1] == prefix + "[$.tlsCertificateS3Bucket: is missing but it is required]"
    assert eks.list_addons(clusterName=active_cluster)["addons"] == []


def test_configuration_values_outside_the_addons_schema_are_refused(eks, active_cluster):
    with pytest.raises(ClientError) as unknown_key:
        eks.create_addon(
            clusterName=active_cluster,
            addonName=INFERENCE,
            configurationValues=INFERENCE_VALUES[:-1] + ', "replicas": 2}',
        )
    with pytest.raises(ClientError) as not_an_object:
        eks.create_addon(clusterName=active_cluster, addonName="metrics-server", configurationValues="null")

    assert _error(unknown_key)[1].endswith(
        "[$.replicas: is not defined in the schema and the schema does not allow additional properties]"
    )
    assert _error(not_an_object)[1].endswith("[$: null found, object expected]")


def test_inference_addon_fails_to_create_without_its_prerequisites_with_the_documented_errors(
    eks, active_cluster, nodes
):
    nodes.append(_node())
    sandbox.aws.set_addon_transition_seconds(0)
    eks.create_addon(clusterName=active_cluster, addonName=INFERENCE, configurationValues=INFERENCE_VALUES)

    failed = _settled(eks, active_cluster, INFERENCE)

    assert failed["status"] == "CREATE_FAILED"
    messages = [i["message"] for i in failed["health"]["issues"]]
    assert any(m.startswith("Missing required CRD: certificaterequests.cert-manager.io") for m in messages)
    assert any(m.startswith("S3 CSI driver not installed (missing CSIDriver s3.csi.aws.com)") for m in messages)
    assert any(m.startswith("FSx CSI driver not installed (missing CSIDriver fsx.csi.aws.com)") for m in messages)


def test_inference_addon_with_its_prerequisites_installed_is_active(eks, active_cluster, nodes):
    nodes.append(_node())
    sandbox.aws.set_addon_transition_seconds(0)
    for name in ("cert-manager", "aws-mountpoint-s3-csi-driver", "aws-fsx-csi-driver"):
        eks.create_addon(clusterName=active_cluster, addonName=name)
        _settled(eks, active_cluster, name)
    eks.create_addon(clusterName=active_cluster, addonName=INFERENCE, configurationValues=INFERENCE_VALUES)

    addon = _settled(eks, active_cluster, INFERENCE)

    assert (addon["status"], addon["health"]["issues"]) == ("ACTIVE", [])


def test_launchpods_adapter_reads_every_addon_of_a_cluster_each_with_its_own_description(eks, active_cluster):
    from launchpod.adapters.aws.eks import Eks

    names = ["vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent", "metrics-server"]
    for name in names:
        eks.create_addon(clusterName=active_cluster, addonName=name)
    found = Eks().addons(active_cluster)
    assert sorted(found) == sorted(names)
    assert all(found[n].name == n and found[n].status is not None for n in names)
