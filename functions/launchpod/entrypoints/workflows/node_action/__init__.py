"""reboot-nodes, replace-nodes, delete-nodes and health-check: one pair of phases for every node action."""
