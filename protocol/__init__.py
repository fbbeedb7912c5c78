"""The tablewire wire protocol, sans-I/O: messages, codec, diff/patch, mirror.

Nothing here touches a socket or a clock; the server and the clients are thin
shells around it. The byte-level specification is ``docs/protocol.md``.
"""

PROTOCOL_VERSION = 2
"""The protocol version this code's clients speak; a client names it in ``hello``."""

PROTOCOLS = (1, 2)
"""The versions a server speaks: 2 sends patches and acks as compact arrays
(:mod:`protocol.compact`), 1 as the maps of the first version."""
