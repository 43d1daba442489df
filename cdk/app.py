#!/usr/bin/env python3
"""The Launchpod CDK app: ``python cdk/app.py`` (make synth) or ``cdk deploy`` from cdk/.

Synthesis runs cdk-nag AwsSolutions; an unacknowledged finding fails it with a JSON report.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aws_cdk import App, Environment  # noqa: E402

from launchpod_cdk import nag  # noqa: E402
from launchpod_cdk.config import Inputs  # noqa: E402
from launchpod_cdk.stack import LaunchpodStack  # noqa: E402


def build(outdir: str | None = None, inputs: Inputs | None = None) -> tuple[App, LaunchpodStack]:
    app = App(outdir=outdir or os.environ.get("CDK_OUTDIR"))
    inputs = inputs or Inputs.from_context(app.node)
    stack = LaunchpodStack(
        app,
        app.node.try_get_context("launchpod:stackName") or "Launchpod",
        inputs=inputs,
        env=Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION")),
    )
    nag.enable(app)
    nag.acknowledge(stack)
    return app, stack


if __name__ == "__main__":
    app, _ = build()
    app.synth()
