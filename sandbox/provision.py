"""Provisions moto from the registry, as the CDK stack provisions AWS: tables, the Lambda role and
functions (same Handler strings), the kube-access role, the state machines (same ASL files, same
${Placeholder} substitutions), the operations-stream event source and the EventBridge rules."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

import boto3
from launchpod import registry
from launchpod.runtime.settings import ENV_KEYS

ACCOUNT = "123456789012"
REGION = "us-east-1"
PREFIX = "launchpod"

_LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


@dataclass(frozen=True)
class Provisioned:
    environment: dict[str, str]
    state_machines: dict[str, str]  # workflow -> ARN
    functions: dict[str, str]  # logical name -> physical name
    kube_role_arn: str


def table_name(key: str) -> str:
    return f"{PREFIX}-{key}"


def _create_table(ddb: Any, spec: registry.TableSpec) -> str:
    keys = [(spec.partition_key, "HASH")] + ([(spec.sort_key, "RANGE")] if spec.sort_key else [])
    attributes = {name for name, _ in keys}
    indexes = []
    for index_name, pk, sk in spec.indexes:
        attributes |= {pk} | ({sk} if sk else set())
        schema = [{"AttributeName": pk, "KeyType": "HASH"}] + (
            [{"AttributeName": sk, "KeyType": "RANGE"}] if sk else []
        )
        indexes.append({"IndexName": index_name, "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}})
    kwargs: dict[str, Any] = {
        "TableName": table_name(spec.key),
        "KeySchema": [{"AttributeName": n, "KeyType": t} for n, t in keys],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in sorted(attributes)],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if indexes:
        kwargs["GlobalSecondaryIndexes"] = indexes
    if spec.stream:
        kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    out = ddb.create_table(**kwargs)["TableDescription"]
    return str(out.get("LatestStreamArn", ""))


def _placeholder_zip() -> bytes:
    # moto needs a package; the handlers themselves run in-process from their Handler strings.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("README.txt", "Launchpod handlers run in-process in the sandbox.\n")
    return buffer.getvalue()


def provision(extra_env: dict[str, str] | None = None) -> Provisioned:
    session = boto3.session.Session(region_name=REGION)
    iam, ddb = session.client("iam"), session.client("dynamodb")
    lam, sfn = session.client("lambda"), session.client("stepfunctions")

    streams = {spec.key: _create_table(ddb, spec) for spec in registry.TABLES}
    bucket = f"{registry.SHARED_BUCKET_PREFIX}-{ACCOUNT}-{REGION}"
    session.client("s3").create_bucket(Bucket=bucket)
    lambda_role = iam.create_role(RoleName=f"{PREFIX}-lambda", AssumeRolePolicyDocument=json.dumps(_LAMBDA_TRUST))
    kube_trust = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": lambda_role["Role"]["Arn"]}, "Action": "sts:AssumeRole"}
        ],
    }
    kube_role = iam.create_role(RoleName=f"{PREFIX}-kube-access", AssumeRolePolicyDocument=json.dumps(kube_trust))
    kube_role_arn = kube_role["Role"]["Arn"]

    machines = {
        m.name: f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{PREFIX}-{m.name}" for m in registry.STATE_MACHINES
    }
    environment = {
        ENV_KEYS["region"]: REGION,
        ENV_KEYS["operations_table"]: table_name("operations"),
        ENV_KEYS["clusters_table"]: table_name("clusters"),
        ENV_KEYS["connections_table"]: table_name("connections"),
        ENV_KEYS["idempotency_table"]: table_name("idempotency"),
        ENV_KEYS["preferences_table"]: table_name("preferences"),
        ENV_KEYS["workflows"]: json.dumps(machines),
        ENV_KEYS["kube_role_arn"]: kube_role_arn,
        ENV_KEYS["resource_prefix"]: PREFIX,
        ENV_KEYS["bucket"]: bucket,
        "POWERTOOLS_SERVICE_NAME": "launchpod",
        "POWERTOOLS_METRICS_NAMESPACE": "Launchpod",
        "POWERTOOLS_TRACE_DISABLED": "true",
        **(extra_env or {}),
    }
    functions, arns = {}, {}
    zipped = _placeholder_zip()
    for spec in registry.FUNCTIONS:
        name = registry.function_name(spec.name, PREFIX)
        out = lam.create_function(
            FunctionName=name,
            Runtime="python3.12",
            Role=lambda_role["Role"]["Arn"],
            Handler=spec.handler,
            Code={"ZipFile": zipped},
            Description=spec.description[:256],
            Timeout=spec.timeout,
            MemorySize=spec.memory,
            Environment={"Variables": environment},
        )
        functions[spec.name], arns[spec.name] = name, out["FunctionArn"]

    lam.create_event_source_mapping(
        EventSourceArn=streams["operations"],
        FunctionName=functions["operations-stream"],
        StartingPosition="LATEST",
        BatchSize=10,
    )

    sfn_role = iam.create_role(
        RoleName=f"{PREFIX}-states",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "states.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
    )
    for machine in registry.STATE_MACHINES:
        definition = machine.path.read_text()
        for key, value in registry.substitutions(machine, arns, machines).items():
            definition = definition.replace("${" + key + "}", value)
        sfn.create_state_machine(
            name=f"{PREFIX}-{machine.name}",
            definition=definition,
            roleArn=sfn_role["Role"]["Arn"],
            type="STANDARD",
        )
    _create_event_rules(session.client("events"), arns)
    return Provisioned(environment, machines, functions, kube_role_arn)


def _create_event_rules(events: Any, arns: dict[str, str]) -> None:
    """The registry's EventBridge rules; schedules are left out (the sandbox runs no cron)."""
    machine_prefix = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{PREFIX}-"
    for rule in registry.event_rules(machine_prefix):
        if rule.pattern is None:
            continue
        name = rule.rule_name(PREFIX)
        events.put_rule(Name=name, EventPattern=json.dumps(rule.pattern), State="ENABLED", Description=rule.description)
        events.put_targets(Rule=name, Targets=[{"Id": rule.function, "Arn": arns[rule.function]}])
