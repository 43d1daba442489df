"""kubectl on a sandbox cluster, set up as a user sets it up: ``launchpod kubeconfig`` (what ``aws eks
update-kubeconfig`` does) writes the endpoint, its certificate authority and an exec plugin; kubectl then
verifies the HTTPS endpoint against that CA and authenticates with an EKS token of the kube-access role."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.sandbox.clusters import grant_view, their_eks_cluster
from tests.sandbox.conftest import KUBE_ROLE_ARN

pytestmark = pytest.mark.e2e


def test_kubectl_reaches_a_cluster_through_the_kubeconfig_launchpod_writes(sandbox, tmp_path: Path):
    their_eks_cluster(sandbox, "kubectl-e2e", "API")
    grant_view(sandbox, "kubectl-e2e", KUBE_ROLE_ARN)
    config = tmp_path / "kubeconfig"
    bin_dir = Path(sys.executable).parent
    # As the README has a newcomer do it: no AWS credentials configured (the sandbox's are used then)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",  # kubectl runs the exec plugin from PATH
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
    }
    where = ["--kubeconfig", str(config), "--aws-url", sandbox.aws_url]
    unknown = subprocess.run(
        [str(bin_dir / "launchpod"), "kubeconfig", "no-such-cluster", *where],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert unknown.returncode == 1 and "Traceback" not in unknown.stderr, unknown.stderr
    assert unknown.stderr == "launchpod kubeconfig: DescribeCluster: No cluster found for name: no-such-cluster.\n"
    setup = ["kubeconfig", "kubectl-e2e", *where]
    written = subprocess.run(
        [str(bin_dir / "launchpod"), *setup, "--role-arn", KUBE_ROLE_ARN],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert written.returncode == 0, written.stderr
    doc = yaml.safe_load(config.read_text())
    assert doc["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")
    assert doc["users"][0]["user"]["exec"]["args"][:3] == ["eks-token", "--cluster-name", "kubectl-e2e"]

    listed = subprocess.run(
        ["kubectl", "--kubeconfig", str(config), "get", "ns", "-o", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "Warning" not in listed.stderr, listed.stderr  # e.g. a short name two resources claim
    assert {"default", "kube-system"} <= {n["metadata"]["name"] for n in json.loads(listed.stdout)["items"]}

    # View access reads but does not write, in kubectl's words.
    created = subprocess.run(
        ["kubectl", "--kubeconfig", str(config), "create", "namespace", "nope"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert created.returncode != 0 and "forbidden" in created.stderr, created.stderr
