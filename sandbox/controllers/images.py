"""Whether a node can pull a container image, and the kubelet's words when it cannot.

AWS publishes its cluster images to one ECR registry per region, each in an account of its own; the
same repository under another account's registry (or another region's host name) does not exist, and
containerd's pull of it fails with NotFound. The accounts modelled, each from its publisher:

* EKS's images (``eks/...``, the EFA device plugin among them): 602401143452 in most regions, the
  exceptions in "View Amazon container image registries for Amazon EKS add-ons",
  https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html;
* the AWS Load Balancer Controller (``amazon/aws-load-balancer-controller``): the same accounts, as its
  release notes list its ECR images (e.g. https://github.com/kubernetes-sigs/aws-load-balancer-controller/
  releases/tag/v2.2.3: 602401143452 in most regions, 558608220178 in me-south-1, 590381155156 in eu-south-1);
* HyperPod's health monitoring agent (``hyperpod-health-monitoring-agent``): the official chart's
  region -> account map (aws/sagemaker-hyperpod-cli, helm_chart/HyperPodHelmChart/charts/
  health-monitoring-agent/templates/_helpers.tpl).

The kubelet first reports ``ErrImagePull`` with the runtime's error, then ``ImagePullBackOff`` with
"Back-off pulling image "<image>": ErrImagePull: <error>" (Kubernetes 1.3x wording); the Pod is not
Ready and does not restart. A node whose subnet reaches AWS only through VPC endpoints (no route to the
internet) pulls only from ECR in its own region; public registries and other regions time out. Not
modelled: images of the user's own ECR accounts (always pull), tags that do not exist.
"""

from __future__ import annotations

# These maps repeat the facts Launchpod's manifest builders use (launchpod.domain.dependencies.objects)
# on purpose: the sandbox plays AWS's registries, and importing Launchpod's copy would make a wrong
# account there pull here anyway.
import re

EKS_ACCOUNTS = {
    "af-south-1": "877085696533",
    "ap-east-1": "800184023465",
    "ap-south-2": "900889452093",
    "ap-southeast-3": "296578399912",
    "ap-southeast-4": "491585149902",
    "ap-southeast-5": "151610086707",
    "ap-southeast-7": "121268973566",
    "eu-central-2": "900612956339",
    "eu-south-1": "590381155156",
    "eu-south-2": "455263428931",
    "me-central-1": "759879836304",
    "me-south-1": "558608220178",
}
EKS_DEFAULT_ACCOUNT = "602401143452"
HMA_ACCOUNTS = {
    "us-east-1": "767398015722",
    "us-west-2": "905418368575",
    "us-east-2": "851725546812",
    "us-west-1": "011528288828",
    "eu-central-1": "211125453373",
    "eu-north-1": "654654141839",
    "eu-west-1": "533267293120",
    "eu-west-2": "011528288831",
    "eu-south-2": "626887787726",
    "ap-northeast-1": "533267052152",
    "ap-south-1": "011528288864",
    "ap-southeast-1": "905418428165",
    "ap-southeast-2": "851725636348",
    "ap-southeast-3": "971422672635",
    "ap-southeast-4": "084375568333",
    "ca-central-1": "843976229209",
    "sa-east-1": "025066253954",
}
_ECR = re.compile(r"^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com/(.+?)(?::[^/:]+)?(?:@.+)?$")
AWS_ACCOUNTS = {EKS_DEFAULT_ACCOUNT, *EKS_ACCOUNTS.values(), *HMA_ACCOUNTS.values()}
# Set by the sandbox's HyperPod on each Node it registers: whether the node's subnet routes to the internet.
INTERNET_ANNOTATION = "sandbox.launchpod.dev/internet-egress"


def _serves(account: str, region: str, repository: str) -> bool:
    if (
        repository.startswith("eks/")
        or repository.startswith("amazon-k8s-cni")
        or repository == "amazon/aws-load-balancer-controller"
    ):
        return account == EKS_ACCOUNTS.get(region, EKS_DEFAULT_ACCOUNT)
    if repository == "hyperpod-health-monitoring-agent":
        return HMA_ACCOUNTS.get(region) == account
    return False


def pull_error(image: str, node_region: str | None = None, internet: bool = True) -> str | None:
    """containerd's error for pulling ``image`` on a node in ``node_region``, or None when the pull succeeds.

    Without a route to the internet (a subnet that reaches AWS only through VPC endpoints), a node pulls
    only from ECR in its own region (the ecr.api, ecr.dkr and s3 endpoints; "Amazon ECR interface VPC
    endpoints (AWS PrivateLink)" in the ECR user guide); any other registry times out connecting.
    """
    m = _ECR.match(image)
    if not internet and not (m and (node_region is None or m.group(2) == node_region)):
        host = m.group(0).split("/", 1)[0] if m else _registry_host(image)
        return (
            f'rpc error: code = DeadlineExceeded desc = failed to pull and unpack image "{image}": failed to '
            f'resolve reference "{image}": failed to do request: Head "https://{host}/v2/": dial tcp {host}:443: '
            "i/o timeout"
        )
    if not m or m.group(1) not in AWS_ACCOUNTS:
        return None
    account, region, repository = m.groups()
    if _serves(account, region, repository):
        return None
    return (
        f'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve '
        f'reference "{image}": {image}: not found'
    )


def _registry_host(image: str) -> str:
    """The registry an image reference names: its first path part when that looks like a host
    (a dot, a port or localhost), Docker Hub otherwise (the container runtimes' rule)."""
    first = image.split("/", 1)[0]
    if "/" in image and ("." in first or ":" in first or first == "localhost"):
        return first
    return "registry-1.docker.io"


def waiting(image: str, error: str, first: bool) -> dict[str, str]:
    """The container's ``state.waiting`` while its image cannot be pulled."""
    if first:
        return {"reason": "ErrImagePull", "message": error}
    return {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}": ErrImagePull: {error}'}
