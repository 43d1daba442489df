"""DynamoDB tables: operations, the cluster registry (which also holds each cluster's lock), and
WebSocket connections."""
