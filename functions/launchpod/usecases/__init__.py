"""Use cases: check, read the real state, plan and submit, shared by the REST routers so that no router
imports another. Each takes its ports (ports.py) as arguments where that stays simple; the routers pass
the real adapters from runtime.wiring and unit tests pass in-memory fakes."""
