"""HyperPod nodes: the joined view of a node, and the node actions' plans and completion rules."""
