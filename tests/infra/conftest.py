"""One synthesis of the Launchpod stack per test session, shared by every infra test.

The stack synthesized here is the deployed one (the real registry, the real ASL files) plus, only
where the tree does not have them yet: stub registry entries for functions the stack wires by name
(the WebSocket authorizer and EventBridge handlers), throwaway ASL files for registry state machines
whose file is missing, and a throwaway Dockerfile for the MCP gateway. ``Synth.stand_ins`` names them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "cdk"))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from launchpod import registry  # noqa: E402
from launchpod.registry import FunctionSpec  # noqa: E402
from launchpod_cdk.config import Inputs  # noqa: E402
from launchpod_cdk.stack import WIRED_BY_NAME  # noqa: E402

STACK = "Launchpod"


# CDK writes the template within seconds, then spends most of synth() in the cdk-nag validation;
# cfn-lint (about 15 s of CPU) runs in a second process meanwhile.
CFN_LINT_IGNORED = {"W3005": "CDK emits DependsOn alongside GetAtt for every Lambda/state machine role"}


class _CfnLintWhenWritten:
    def __init__(self, template: Path) -> None:
        self.template = template
        self.synth_done = threading.Event()
        self.process: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._start, daemon=True)
        self._thread.start()

    def _start(self) -> None:
        while True:
            done = self.synth_done.is_set()
            try:
                json.loads(self.template.read_text())
                break
            except (OSError, ValueError):
                if done:
                    return
                time.sleep(0.2)
        # the nested stacks' templates are written with the parent's (cdk.out/*.nested.template.json)
        nested = sorted(str(p) for p in self.template.parent.glob("*.nested.template.json"))
        self.process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "cfn-lint"),
                "--ignore-checks",
                *CFN_LINT_IGNORED,
                "--",
                str(self.template),
                *nested,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def result(self) -> tuple[int, str]:
        self._thread.join()
        assert self.process is not None, f"{self.template} was never written"
        output, _ = self.process.communicate()
        return self.process.returncode, output


@dataclass
class Synth:
    template: dict
    report: dict | None
    error: str | None
    stack: object
    outdir: Path
    stand_ins: list[str] = field(default_factory=list)
    cfn_lint: _CfnLintWhenWritten | None = None

    @property
    def nested(self) -> list[dict]:
        """The nested stacks' templates (the functions' log groups)."""
        return [json.loads(p.read_text()) for p in sorted(self.outdir.glob("*.nested.template.json"))]

    @property
    def resources(self) -> dict[str, dict]:
        """Every resource the deployment makes: the stack's and its nested stacks'."""
        return {k: r for t in (self.template, *self.nested) for k, r in t["Resources"].items()}

    def of_type(self, cfn_type: str) -> dict[str, dict]:
        return {k: r for k, r in self.resources.items() if r["Type"] == cfn_type}


def _asl_fixture(machine: registry.StateMachineSpec) -> str:
    """A minimal definition using every placeholder the registry says the machine has."""
    states: dict[str, dict] = {}
    names = list(machine.functions)
    for i, fn in enumerate(names):
        placeholder = registry.FUNCTIONS_BY_NAME[fn].placeholder or fn
        states[f"S{i}"] = {"Type": "Task", "Resource": f"${{{placeholder}}}", "Next": f"S{i + 1}"}
    waits = list(machine.settings)
    for j, setting in enumerate(waits):
        states[f"S{len(names) + j}"] = {
            "Type": "Wait",
            "Seconds": 1,
            "Comment": f"${{{setting}}}",
            "Next": f"S{len(names) + j + 1}",
        }
    states[f"S{len(names) + len(waits)}"] = {"Type": "Succeed"}
    return json.dumps({"StartAt": "S0", "States": states})


# The second synthesis: your own OIDC issuer instead of the Cognito user pool (cdk/README.md).
OIDC = {
    "oidc_issuer": "https://idp.example.com/oauth2/default",
    "oidc_audience": "launchpod-api",
    "oidc_groups_claim": "groups",
    "oidc_client_id": "launchpod-web",
    "oidc_scopes": ("openid", "email", "profile", "groups"),
}


@pytest.fixture(scope="session")
def synth(tmp_path_factory) -> Synth:
    return _synthesize(tmp_path_factory.mktemp("infra"))


# Deploy-time settings away from their defaults, carried by the second synthesis too (one synthesis less).
SETTINGS = {"plan_expiring_hours": (72, 24)}


@pytest.fixture(scope="session")
def synth_oidc(tmp_path_factory) -> Synth:
    return _synthesize(tmp_path_factory.mktemp("infra-oidc"), **OIDC, **SETTINGS)


def _synthesize(scratch: Path, **overrides) -> Synth:
    from launchpod_cdk.stack import build

    stand_ins: list[str] = []

    extra = []
    for name, handler in WIRED_BY_NAME.items():
        if name not in registry.FUNCTIONS_BY_NAME:
            extra.append(FunctionSpec(name, handler, f"test stand-in for {name}", tables=("operations", "clusters")))
            stand_ins.append(f"function {name}")

    asl_dir = registry.STATEMACHINES_DIR
    if any(not m.path.is_file() for m in registry.STATE_MACHINES):
        asl_dir = scratch / "statemachines"
        asl_dir.mkdir()
        for m in registry.STATE_MACHINES:
            if m.path.is_file():
                (asl_dir / m.file).write_text(m.path.read_text())
            else:
                (asl_dir / m.file).write_text(_asl_fixture(m))
                stand_ins.append(f"ASL {m.file}")

    gateway_context = ROOT
    if not (ROOT / "mcp_gateway" / "Dockerfile").is_file():
        gateway_context = scratch / "gateway"
        (gateway_context / "mcp_gateway").mkdir(parents=True)
        (gateway_context / "mcp_gateway" / "Dockerfile").write_text("FROM public.ecr.aws/lambda/python:3.12-arm64\n")
        stand_ins.append("mcp_gateway/Dockerfile")

    inputs = Inputs(
        statemachines_dir=asl_dir,
        gateway_context=gateway_context,
        extra_functions=tuple(extra),
        admin_email="admin@example.com",
        **overrides,
    )
    outdir = scratch / "cdk.out"
    app, stack = build(str(outdir), inputs)
    lint = _CfnLintWhenWritten(outdir / f"{STACK}.template.json")
    error = None
    try:
        app.synth()
    except RuntimeError as exc:  # cdk-nag: ValidationFailed, report in validation-report.json
        error = str(exc)
    finally:
        lint.synth_done.set()
    report_path = outdir / "validation-report.json"
    return Synth(
        template=json.loads((outdir / f"{STACK}.template.json").read_text()),
        report=json.loads(report_path.read_text()) if report_path.is_file() else None,
        error=error,
        stack=stack,
        outdir=outdir,
        stand_ins=stand_ins,
        cfn_lint=lint,
    )
