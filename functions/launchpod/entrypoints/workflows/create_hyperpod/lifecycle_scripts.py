"""LifecycleScripts: the scripts every new node runs, uploaded to the shared bucket."""

from __future__ import annotations

from launchpod.adapters.aws import s3
from launchpod.contracts.phase_outputs import LifecycleScriptsOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    bucket = settings().bucket
    uri = hyperpod.scripts_uri(bucket, doc.target)
    s3.put_text(bucket, f"{hyperpod.SCRIPTS_PREFIX}/{doc.target}/on_create.sh", hyperpod.ON_CREATE)
    return PhaseResult(outputs=LifecycleScriptsOutput(sourceS3Uri=uri), message=f"{uri}on_create.sh")


handler = phase("LifecycleScripts")(run)
