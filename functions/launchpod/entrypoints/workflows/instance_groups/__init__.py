"""instance-groups: one change to one instance group by UpdateCluster, followed to a terminal state."""
