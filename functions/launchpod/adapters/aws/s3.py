"""S3: the shared bucket (lifecycle scripts now; models, datasets and checkpoints later)."""

from __future__ import annotations

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call


def put_text(bucket: str, key: str, text: str) -> None:
    with aws_call(f"s3:PutObject s3://{bucket}/{key}"):
        client("s3").put_object(Bucket=bucket, Key=key, Body=text.encode(), ServerSideEncryption="AES256")
