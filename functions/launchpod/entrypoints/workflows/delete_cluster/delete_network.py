"""DeleteNetwork: every network resource tagged as this cluster's; a VPC the user gave is kept,
only the compute subnet and security group Launchpod added to it go."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.delete_cluster._common import our_tags
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    gone = wiring.ec2().delete_tagged_network(our_tags(doc.target))
    return PhaseResult(
        outputs={"deleted": gone}, message=f"Deleted {len(gone)}: " + (", ".join(gone) or "nothing"), skipped=not gone
    )


handler = phase("DeleteNetwork")(run)
