// What a failed operation's page tells the user to do next, by what failed.

/** The advice under a failed operation's error: ``error`` is the failed phase's AWS error code, ``anotherZone``
 * whether the page offers "Try another zone" (a HyperPod ask that failed). */
export function failureAdvice(error: string | null | undefined, anotherZone: boolean): string {
  if (anotherZone) {
    return 'Fix the cause, then choose "Retry from failed phase" (phases already done are kept), or "Try another zone": the failed HyperPod cluster is deleted and created again there.';
  }
  if (error === 'UnsupportedAvailabilityZoneException') {
    // EKS's way out: the cluster created again with subnets in the zones its error names
    // (https://repost.aws/knowledge-center/eks-cluster-creation-errors); the shortage can also pass.
    return 'EKS has no room for the control plane in that zone now. Choose "Retry from failed phase" later, or delete the cluster (its Actions menu) and create it again in the zones EKS names.';
  }
  return 'Fix the cause, then choose "Retry from failed phase". Phases already done are kept.';
}
