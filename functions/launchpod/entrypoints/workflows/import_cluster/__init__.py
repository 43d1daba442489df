"""import-cluster: access entry -> verify access (the create-control-plane phases, reused) -> register."""
