"""provision-cluster's own phases (the rest are its children's)."""
