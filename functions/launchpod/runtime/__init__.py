"""Runtime: settings (the only reader of the environment) and wiring (the only builder of adapters)."""
