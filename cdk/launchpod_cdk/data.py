"""Data: the DynamoDB tables from the registry, the shared S3 bucket and its access-log bucket.

Tables are on-demand (no idle cost), keep point-in-time recovery and survive a stack delete;
the shared bucket holds lifecycle scripts, models, datasets and checkpoints.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_s3 as s3
from constructs import Construct
from launchpod.registry import TableSpec


def private_bucket(scope: Construct, id: str, **props: Any) -> s3.Bucket:
    """A bucket as every one Launchpod makes: encrypted, not public, TLS only, versioned, kept on stack
    delete (a non-empty bucket cannot be deleted by CloudFormation); ``props`` add the rest."""
    return s3.Bucket(
        scope,
        id,
        encryption=s3.BucketEncryption.S3_MANAGED,
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        enforce_ssl=True,
        versioned=True,
        removal_policy=RemovalPolicy.RETAIN,
        **props,
    )


def _attr(name: str) -> ddb.Attribute:
    return ddb.Attribute(name=name, type=ddb.AttributeType.STRING)


class Data(Construct):
    def __init__(self, scope: Construct, id: str, *, tables: tuple[TableSpec, ...], bucket_name: str) -> None:
        super().__init__(scope, id)
        self.tables: dict[str, ddb.Table] = {}
        for spec in tables:
            table = ddb.Table(
                self,
                pascal(spec.key) + "Table",
                partition_key=_attr(spec.partition_key),
                sort_key=_attr(spec.sort_key) if spec.sort_key else None,
                billing_mode=ddb.BillingMode.PAY_PER_REQUEST,
                point_in_time_recovery_specification=ddb.PointInTimeRecoverySpecification(
                    point_in_time_recovery_enabled=True
                ),
                deletion_protection=True,
                removal_policy=RemovalPolicy.RETAIN,
                stream=ddb.StreamViewType(spec.stream) if spec.stream else None,
                time_to_live_attribute=spec.ttl_attribute,
            )
            for index, pk, sk in spec.indexes:
                table.add_global_secondary_index(
                    index_name=index, partition_key=_attr(pk), sort_key=_attr(sk) if sk else None
                )
            self.tables[spec.key] = table

        # Access logs need a bucket of their own; it cannot log to itself (cdk-nag S1 is acknowledged).
        self.log_bucket = private_bucket(
            self,
            "AccessLogBucket",
            # CloudFront standard logging writes with ACLs; S3 server access logging does not need them.
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[
                s3.LifecycleRule(expiration=Duration.days(365), noncurrent_version_expiration=Duration.days(30))
            ],
        )
        # CloudFront standard logs are delivered with the log-delivery-write canned ACL, which CDK sets
        # through the legacy AccessControl property (cfn-lint W3045).
        self.log_bucket.node.default_child.add_metadata("cfn-lint", {"config": {"ignore_checks": ["W3045"]}})
        self.bucket = private_bucket(
            self,
            "SharedBucket",
            bucket_name=bucket_name,
            server_access_logs_bucket=self.log_bucket,
            server_access_logs_prefix="shared/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    abort_incomplete_multipart_upload_after=Duration.days(7),
                    noncurrent_version_expiration=Duration.days(30),
                )
            ],
        )


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))
