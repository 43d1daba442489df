"""REST routers, one per capability."""
