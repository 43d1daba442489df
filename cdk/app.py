#!/usr/bin/env python3
"""The Launchpod CDK app: ``python cdk/app.py`` (make synth) or ``cdk deploy`` from cdk/.

Synthesis runs cdk-nag AwsSolutions; an unacknowledged finding fails it with a JSON report.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from launchpod_cdk.stack import build

if __name__ == "__main__":
    app, _ = build()
    app.synth()
