"""The fork server parses botocore's data once for the services Launchpod's functions call
(sandbox.lambda_env.warm), so an environment's first client of each reads no data file again."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from sandbox.lambda_env.warm import SERVICES

ROOT = Path(__file__).resolve().parents[3]
# client("eks"), resource("dynamodb"), boto3.client("apigatewaymanagementapi", ...): the product's ways to make one
MADE = re.compile(r"""\b(?:client|resource)\(\s*["']([a-z0-9-]+)["']""")

PROBE = """
import json, sys
import sandbox.lambda_env.warm
import boto3
opened = []
def seen(event, args):
    if event == "open" and str(args[0]).endswith((".json", ".json.gz")):
        opened.append(str(args[0]))
sys.addaudithook(seen)
for service in sys.argv[1:]:
    boto3.session.Session(region_name="us-east-1").client(service, aws_access_key_id="a", aws_secret_access_key="b")
print(json.dumps(opened))
"""


def _opened(*services: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *services], cwd=ROOT, capture_output=True, text=True, env=env, check=True
    )
    return list(json.loads(done.stdout))


def test_every_service_a_function_makes_a_client_for_is_warmed():
    made = {m for path in (ROOT / "functions").rglob("*.py") for m in MADE.findall(path.read_text())}
    assert made, "no client found: the pattern no longer matches how the adapters make clients"
    assert made <= set(SERVICES), f"not parsed by the fork server: {sorted(made - set(SERVICES))}"


def test_a_new_session_in_an_environment_reads_no_data_file_for_a_warmed_service():
    assert _opened("ec2", "sagemaker", "dynamodb") == []


def test_a_service_not_warmed_is_read_from_its_files_as_botocore_does():
    opened = _opened("kinesis")
    assert any("kinesis" in path and "service-2.json" in path for path in opened), opened


def test_a_function_with_its_own_aws_data_path_reads_its_own_files(tmp_path):
    opened = _opened("ec2", env={**os.environ, "AWS_DATA_PATH": str(tmp_path)})
    assert any("/ec2/" in path for path in opened), opened


def test_an_environment_shares_the_fork_servers_objects_instead_of_copying_them():
    """Frozen before the fork server forks, what it imported and parsed stays out of each environment's collector,
    so an environment's first full collection does not copy the fork server's heap into memory of its own (dozens
    of warm environments per sandbox ran the machine out of memory before)."""
    frozen = subprocess.run(
        [sys.executable, "-c", "import gc, sandbox.lambda_env.warm; print(gc.get_freeze_count())"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert int(frozen.stdout) > 100_000  # the layer's modules and the parsed models: some 138,000 objects
