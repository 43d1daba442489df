"""Use cases: check, read the real state, plan and submit, one module per capability, shared by the REST
routers so that no router imports another. Each takes its ports (Protocols in ports.py, bundled per
capability in a frozen dataclass) as the keyword argument ``ports``; the module's ``real()`` alone builds the
deployed ones from runtime.wiring, and unit tests pass in-memory fakes (tests/usecases/fakes.py)."""
