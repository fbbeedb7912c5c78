"""Tiny Nim's bots: the random bot only, declared explicitly."""

GREEDY = None
"""No greedy bot: the lobby offers random bots for Tiny Nim."""
