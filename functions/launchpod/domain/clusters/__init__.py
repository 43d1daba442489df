"""Cluster rules: what creating, reading and owning a cluster means, independent of AWS."""
