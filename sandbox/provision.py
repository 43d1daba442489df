"""Provisions moto from the registry, as the CDK stack provisions AWS: tables, one role per function
with the statements ``launchpod.policies`` writes (the ones CDK deploys, and the ones the sandbox's
IAM gate evaluates), the permissions boundary of created roles, the functions (same Handler strings),
the kube-access role, the state machines (same ASL files, same ${Placeholder} substitutions), the
operations-stream event source and the EventBridge rules."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from typing import Any

import boto3
from launchpod import policies, registry
from launchpod.environment import DeployedNames, function_environment
from launchpod.runtime.settings import ENV_KEYS, shared_bucket_name

from sandbox.aws.iam import GATE, FunctionIdentity

ACCOUNT = "123456789012"
REGION = "us-east-1"
PREFIX = "launchpod"
# The sandbox gateway's WebSocket API, as its requestContext names it (sandbox.gateway).
WEBSOCKET_API_ID = "lpsandbox"
WEBSOCKET_STAGE = "prod"

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
    deployment: policies.Deployment | None = None
    # logical name -> the environment variables CDK gives that function (launchpod.environment)
    function_environments: dict[str, dict[str, str]] = field(default_factory=dict)
    role_arns: dict[str, str] = field(default_factory=dict)  # logical name -> role ARN


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
        kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": spec.stream}
    out = ddb.create_table(**kwargs)["TableDescription"]
    return str(out.get("LatestStreamArn", ""))


def _placeholder_zip() -> bytes:
    # moto needs a package; the sandbox runs the Handler strings from functions/ (sandbox.lambda_env).
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("README.txt", "Launchpod handlers run from functions/ in the sandbox.\n")
    return buffer.getvalue()


def provision(extra_env: dict[str, str] | None = None) -> Provisioned:
    session = boto3.session.Session(region_name=REGION)
    iam, ddb = session.client("iam"), session.client("dynamodb")
    lam, sfn = session.client("lambda"), session.client("stepfunctions")

    streams = {spec.key: _create_table(ddb, spec) for spec in registry.TABLES}
    sns = session.client("sns")
    topic_arn = sns.create_topic(Name=f"{PREFIX}-{registry.NOTIFICATIONS_TOPIC}")["TopicArn"]
    bucket = shared_bucket_name(PREFIX, ACCOUNT, REGION)
    session.client("s3").create_bucket(Bucket=bucket)
    role_arns = {
        spec.name: f"arn:aws:iam::{ACCOUNT}:role/{policies.role_name(spec.name, PREFIX)}" for spec in registry.FUNCTIONS
    }
    kube_trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": [role_arns[s.name] for s in registry.FUNCTIONS if s.kubernetes]},
                "Action": "sts:AssumeRole",
            }
        ],
    }
    kube_role_arn = f"arn:aws:iam::{ACCOUNT}:role/{policies.kube_role_name(PREFIX)}"
    machines = {
        m.name: f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{PREFIX}-{m.name}" for m in registry.STATE_MACHINES
    }
    deployment = policies.Deployment(
        partition="aws",
        region=REGION,
        account=ACCOUNT,
        prefix=PREFIX,
        bucket=bucket,
        table_arns={t.key: f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table_name(t.key)}" for t in registry.TABLES},
        table_stream_arns={k: v for k, v in streams.items() if v},
        kube_role_arn=kube_role_arn,
        websocket_stage_arn=f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{WEBSOCKET_API_ID}/{WEBSOCKET_STAGE}",
        tables=registry.TABLES,
        state_machines=tuple(m.name for m in registry.STATE_MACHINES),
    )
    iam.create_policy(
        PolicyName=policies.boundary_name(PREFIX),
        PolicyDocument=json.dumps(policies.boundary_document(deployment)),
        Description="Permissions boundary of every role Launchpod creates at run time",
    )
    identities = {}
    for spec in registry.FUNCTIONS:
        name = policies.role_name(spec.name, PREFIX)
        statements = policies.function_statements(spec, deployment)
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(_LAMBDA_TRUST))
        iam.put_role_policy(
            RoleName=name,
            PolicyName="launchpod",
            PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": statements}),
        )
        deployed = registry.function_name(spec.name, PREFIX)
        identities[deployed] = FunctionIdentity(deployed, name, role_arns[spec.name], statements)
    iam.create_role(RoleName=policies.kube_role_name(PREFIX), AssumeRolePolicyDocument=json.dumps(kube_trust))
    GATE.configure(identities, ACCOUNT, REGION, PREFIX)
    environment = {
        ENV_KEYS["region"]: REGION,
        # every table's name: the sandbox's own process (its admin routes, in-process handlers) reads any table;
        # each function's environment has only the tables it is granted (launchpod.environment)
        **{ENV_KEYS[f"{t.key}_table"]: table_name(t.key) for t in registry.TABLES},
        ENV_KEYS["notifications_topic_arn"]: topic_arn,
        ENV_KEYS["workflows"]: json.dumps(machines),
        ENV_KEYS["kube_role_arn"]: kube_role_arn,
        ENV_KEYS["resource_prefix"]: PREFIX,
        ENV_KEYS["bucket"]: bucket,
        ENV_KEYS["role_boundary_arn"]: deployment.boundary_arn,
        "POWERTOOLS_SERVICE_NAME": "launchpod",
        "POWERTOOLS_METRICS_NAMESPACE": "Launchpod",
        "POWERTOOLS_TRACE_DISABLED": "true",
        **(extra_env or {}),
    }
    names = DeployedNames(
        tables={t.key: table_name(t.key) for t in registry.TABLES},
        kube_role_arn=kube_role_arn,
        prefix=PREFIX,
        bucket=bucket,
        boundary_arn=deployment.boundary_arn,
        workflows=machines,
        notifications_topic_arn=topic_arn,
    )
    # What CDK gives each function, plus the sandbox's seams (DESIGN.md section 9): no X-Ray daemon,
    # and the endpoints the caller overrides (MLflow's REST API).
    seams = {"POWERTOOLS_TRACE_DISABLED": "true", **(extra_env or {})}
    function_environments = {spec.name: function_environment(spec, names) | seams for spec in registry.FUNCTIONS}
    functions, arns = {}, {}
    zipped = _placeholder_zip()
    for spec in registry.FUNCTIONS:
        name = registry.function_name(spec.name, PREFIX)
        out = lam.create_function(
            FunctionName=name,
            Runtime="python3.12",
            Role=role_arns[spec.name],
            Handler=spec.handler,
            Code={"ZipFile": zipped},
            Description=spec.description[:256],
            Timeout=spec.timeout,
            MemorySize=spec.memory,
            Environment={"Variables": function_environments[spec.name]},
        )
        functions[spec.name], arns[spec.name] = name, out["FunctionArn"]

    for source in registry.STREAM_SOURCES:  # as CDK maps them (cdk/launchpod_cdk/events.py)
        lam.create_event_source_mapping(
            EventSourceArn=streams[source.table],
            FunctionName=functions[source.function],
            StartingPosition="LATEST",
            BatchSize=source.batch_size,
            MaximumBatchingWindowInSeconds=source.batching_window_seconds,
            BisectBatchOnFunctionError=source.bisect_batch_on_error,
            MaximumRetryAttempts=source.retry_attempts,
            MaximumRecordAgeInSeconds=source.max_record_age_seconds,
            FunctionResponseTypes=["ReportBatchItemFailures"] if source.report_batch_item_failures else [],
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
    # The webhook relay gets every notification (it filters by the cluster's webhooks), as CDK subscribes it.
    sns.subscribe(TopicArn=topic_arn, Protocol="lambda", Endpoint=arns["notify-webhooks"])
    return Provisioned(environment, machines, functions, kube_role_arn, deployment, function_environments, role_arns)


def _create_event_rules(events: Any, arns: dict[str, str]) -> None:
    """The registry's EventBridge rules; schedules are left out (the sandbox runs no cron)."""
    machine_prefix = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{PREFIX}-"
    for rule in registry.event_rules(machine_prefix):
        if rule.pattern is None:
            continue
        name = rule.rule_name(PREFIX)
        events.put_rule(Name=name, EventPattern=json.dumps(rule.pattern), State="ENABLED", Description=rule.description)
        events.put_targets(Rule=name, Targets=[{"Id": rule.function, "Arn": arns[rule.function]}])
