"""turn-relay's bots: none beyond the random bot every engine has (``GREEDY = None``)."""

GREEDY = None
"""No greedy bot for the benchmark workload: load generators move by its own rule."""
