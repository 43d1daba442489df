"""AWS adapters, one module per service."""
