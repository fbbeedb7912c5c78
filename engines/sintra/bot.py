"""Sintra's bots: none beyond the random bot every game has (``GREEDY = None``)."""

GREEDY = None
"""No greedy bot for Sintra: the lobby offers random bots only."""
