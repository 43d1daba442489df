"""``launchpod kubeconfig`` and ``launchpod eks-token``: kubectl on a Launchpod cluster, as AWS sets it up.

``kubeconfig`` does what ``aws eks update-kubeconfig`` does
(https://docs.aws.amazon.com/eks/latest/userguide/create-kubeconfig.html): it reads the cluster's endpoint
and ``certificateAuthority`` with DescribeCluster and merges a cluster, a user and a context named after the
cluster's ARN into the kubeconfig, the user running an exec credential plugin. The plugin is ``aws eks
get-token`` against AWS; against the sandbox (``--aws-url``) it is ``launchpod eks-token``, which makes the
same token (a presigned STS GetCallerIdentity URL naming the cluster in ``x-k8s-aws-id``, as
aws-iam-authenticator documents) with credentials from the sandbox's STS, since the AWS CLI is not
installed here and would sign for the endpoint's host rather than STS's.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

EXEC_API = "client.authentication.k8s.io/v1beta1"


# The sandbox's AWS takes any credentials; its banner gives these to the aws CLI.
SANDBOX_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


def _session(args: argparse.Namespace) -> Any:
    """boto3's session: the credentials the aws CLI would use (environment, profile, SSO...); against the
    sandbox, where a user has often configured none, the sandbox's when there are none."""
    import boto3

    session = boto3.Session(region_name=args.region)
    if args.aws_url and session.get_credentials() is None:
        session = boto3.Session(region_name=args.region, **SANDBOX_CREDENTIALS)
    return session


def _client(service: str, args: argparse.Namespace) -> Any:
    return _session(args).client(service, endpoint_url=args.aws_url or None)


def refusing_aws_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` with AWS's refusals said in one line on stderr (exit 1) instead of a traceback."""

    def run(args: argparse.Namespace) -> int:
        from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, NoCredentialsError

        try:
            return command(args)
        except NoCredentialsError:
            said = "no AWS credentials found; configure them as for the aws CLI (aws configure, AWS_PROFILE or the"
            said += " AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY variables)."
        except EndpointConnectionError as exc:
            said = f"cannot reach {exc.kwargs.get('endpoint_url')}; check --aws-url (the sandbox's banner prints it)."
        except ClientError as exc:
            error = exc.response.get("Error", {})
            said = f"{exc.operation_name}: {error.get('Message') or error.get('Code')}"
        except BotoCoreError as exc:
            said = str(exc)
        sys.stderr.write(f"launchpod {args.command}: {said}\n")
        return 1

    return run


def _user(args: argparse.Namespace) -> dict[str, Any]:
    if args.aws_url:
        command = "launchpod"
        argv = ["eks-token", "--cluster-name", args.cluster, "--region", args.region, "--aws-url", args.aws_url]
    else:
        command, argv = "aws", ["--region", args.region, "eks", "get-token", "--cluster-name", args.cluster]
    if args.role_arn:
        argv += ["--role-arn", args.role_arn]
    return {"exec": {"apiVersion": EXEC_API, "command": command, "args": argv, "interactiveMode": "Never"}}


def _merge(entries: list[dict[str, Any]], item: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in entries if e.get("name") != item["name"]] + [item]


@refusing_aws_errors
def kubeconfig(args: argparse.Namespace) -> int:
    cluster = _client("eks", args).describe_cluster(name=args.cluster)["cluster"]
    if cluster.get("status") != "ACTIVE" or not cluster.get("endpoint"):
        print(f"EKS cluster {args.cluster} is {cluster.get('status')}; its API is not ready yet.")
        return 1
    path = Path(args.kubeconfig or os.environ.get("KUBECONFIG") or Path.home() / ".kube" / "config").expanduser()
    config = yaml.safe_load(path.read_text()) if path.exists() else None
    config = config or {"apiVersion": "v1", "kind": "Config", "preferences": {}}
    name = cluster["arn"]
    config["clusters"] = _merge(
        config.get("clusters") or [],
        {
            "name": name,
            "cluster": {
                "server": cluster["endpoint"],
                "certificate-authority-data": cluster["certificateAuthority"]["data"],
            },
        },
    )
    config["users"] = _merge(config.get("users") or [], {"name": name, "user": _user(args)})
    config["contexts"] = _merge(
        config.get("contexts") or [], {"name": name, "context": {"cluster": name, "user": name}}
    )
    config["current-context"] = name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    print(f"Added new context {name} to {path}")
    return 0


@refusing_aws_errors
def eks_token(args: argparse.Namespace) -> int:
    from botocore.credentials import Credentials
    from botocore.signers import RequestSigner

    if args.role_arn:
        assumed = _client("sts", args).assume_role(RoleArn=args.role_arn, RoleSessionName="launchpod-kubectl")
        found = assumed["Credentials"]
        credentials = Credentials(found["AccessKeyId"], found["SecretAccessKey"], found["SessionToken"])
    else:
        found_own = _session(args).get_credentials()
        if found_own is None:
            from botocore.exceptions import NoCredentialsError

            raise NoCredentialsError()
        credentials = found_own.get_frozen_credentials()
    sts = _client("sts", args)
    signer = RequestSigner(sts.meta.service_model.service_id, args.region, "sts", "v4", credentials, sts.meta.events)
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": f"https://sts.{args.region}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
            "body": {},
            "headers": {"x-k8s-aws-id": args.cluster_name},
            "context": {},
        },
        region_name=args.region,
        expires_in=60,
        operation_name="",
    )
    token = "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
    # aws eks get-token reports 14 minutes: the presigned URL is valid for 15.
    expires = (datetime.now(UTC) + timedelta(minutes=14)).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(
        json.dumps(
            {
                "kind": "ExecCredential",
                "apiVersion": EXEC_API,
                "spec": {},
                "status": {"expirationTimestamp": expires, "token": token},
            }
        )
    )
    return 0


def add_parsers(sub: Any) -> None:
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    config = sub.add_parser(
        "kubeconfig",
        help="add a cluster to your kubeconfig, as aws eks update-kubeconfig does (kubectl then reaches it)",
    )
    config.add_argument("cluster", help="the cluster's name")
    config.add_argument("--region", default=region)
    config.add_argument("--role-arn", help="the role kubectl assumes (one with an access entry on the cluster)")
    config.add_argument("--kubeconfig", help="the file to write (default: $KUBECONFIG or ~/.kube/config)")
    config.add_argument("--aws-url", help="the sandbox's AWS endpoint (its banner prints it); omit for AWS")
    token = sub.add_parser("eks-token", help="an EKS token as an ExecCredential (kubectl's exec plugin)")
    token.add_argument("--cluster-name", required=True)
    token.add_argument("--region", default=region)
    token.add_argument("--role-arn")
    token.add_argument("--aws-url")
