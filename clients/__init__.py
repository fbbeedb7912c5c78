"""Clients of tablewire: the Python client library, terminal clients, bot runner and CLI."""
