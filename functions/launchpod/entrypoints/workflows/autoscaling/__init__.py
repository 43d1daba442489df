"""autoscaling: HyperPod-managed Karpenter enabled (role, UpdateCluster, InService, node class and pool) or
disabled (the reverse)."""
