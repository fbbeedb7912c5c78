"""The tablewire wire protocol, sans-I/O: messages, codec, diff/patch, mirror.

Nothing here touches a socket or a clock; the server and the clients are thin
shells around it. The byte-level specification is ``docs/protocol.md``.
"""

PROTOCOL_VERSION = 1
"""The protocol version this code speaks; a client names it in ``hello``."""
