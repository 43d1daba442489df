"""One in-memory fake per port (one module per port), each held to its real adapter by the contract tests
in tests/ports/: what the fake answers is what the adapter answers on the sandbox's AWS or Kubernetes."""
