"""cdk-nag AwsSolutions and cfn-lint on the synthesized template."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.infra


def _violations(report: dict | None) -> list[str]:
    if not report:
        return []
    return [
        f"{v['severity']} {v['ruleName']}: {[c.get('constructPath') for c in v['violatingConstructs']]}"
        for plugin in report.get("pluginReports", [])
        for v in plugin.get("violations", [])
    ]


def test_cdk_nag_aws_solutions_reports_no_unacknowledged_finding(synth):
    assert synth.error is None, "\n".join(_violations(synth.report)) or synth.error


def test_every_nag_acknowledgement_gives_a_reason(synth):
    acknowledgements = synth.stack.acknowledgements
    assert acknowledgements
    vague = [(path, rule) for path, rule, reason in acknowledgements if len(reason.split()) < 6]
    assert vague == []


def test_cfn_lint_finds_nothing(synth):
    returncode, output = synth.cfn_lint.result()
    assert returncode == 0, output
