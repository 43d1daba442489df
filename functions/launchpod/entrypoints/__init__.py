"""Entrypoints: Lambda handlers. Each is a few lines: parse, one use-case call, dump."""
