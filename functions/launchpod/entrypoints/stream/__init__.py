"""WebSocket handlers and the operations-stream pusher."""
