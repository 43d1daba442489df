"""The REST API: one powertools resolver, routes split into routers, errors mapped in one place."""
