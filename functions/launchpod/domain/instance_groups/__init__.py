"""Instance groups of a running HyperPod cluster: the UpdateCluster whitelist, the explicit diff,
the new group's specification and the views."""
