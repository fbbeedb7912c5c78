"""The tablewire server: HTTP lobby, WebSocket endpoint, room actors and stores."""
