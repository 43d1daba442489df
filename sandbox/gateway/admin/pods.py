"""POST /api/sandbox/pods/aws-call: an AWS call made as a pod of a given service account would make it
(sandbox.aws.iam.pods): authorized as the pod's role, then served by moto outside any Lambda's identity."""

from __future__ import annotations

import json
from typing import Any


def pod_call(sandbox: Any, body: dict[str, Any]) -> dict[str, Any]:
    """Authorize the call as the pod's role, then let moto serve it (outside any Lambda's identity)."""
    import boto3
    from botocore.exceptions import ClientError, ParamValidationError
    from botocore.model import OperationNotFoundError

    from sandbox.aws.eks import find_cluster
    from sandbox.aws.iam import authz, pods

    cluster = find_cluster(str(body["cluster"]))
    if cluster is None:
        return {"allowed": False, "message": f"No EKS cluster {body['cluster']}."}
    namespace, name = str(body["namespace"]), str(body["serviceAccount"])
    try:
        account_object = sandbox.fleet.call(
            cluster.name, lambda emu: emu.get_object("v1/serviceaccounts", namespace, name)
        )
    except KeyError:
        account_object = None
    account, region = cluster.arn.split(":")[4], cluster.arn.split(":")[3]
    try:
        identity = pods.identity_of(cluster, account, account_object, namespace, name)
    except pods.NoCredentials as exc:
        return {"allowed": False, "message": str(exc)}
    params = dict(body.get("params") or {})
    service = str(body["service"])
    client = boto3.client(service, region_name=region)
    model = client.meta.service_model
    call = authz.Call(
        prefix=model.signing_name or model.endpoint_prefix,
        operation=str(body["operation"]),
        params=params,
        region=region,
        account=account,
    )
    refused = pods.authorize(identity, call)
    out: dict[str, Any] = {"principal": identity.principal, "via": identity.via, "roleArn": identity.role_arn}
    if refused:
        return out | {"allowed": False, "message": refused}
    try:
        model.operation_model(call.operation)
        result = getattr(client, _snake(call.operation))(**params)
    except (OperationNotFoundError, ParamValidationError, ClientError) as exc:
        return out | {"allowed": True, "error": str(exc)}
    result.pop("ResponseMetadata", None)
    if hasattr(result.get("Body"), "read"):
        result["Body"] = result["Body"].read().decode(errors="replace")
    return out | {"allowed": True, "result": json.loads(json.dumps(result, default=str))}


def _snake(operation: str) -> str:
    from botocore import xform_name

    return str(xform_name(operation))
