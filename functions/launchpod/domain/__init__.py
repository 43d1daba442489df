"""Domain: pure rules per capability — plans, diffs, validation, manifest builders. No SDK calls."""
