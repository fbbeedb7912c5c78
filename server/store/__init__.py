"""Room stores: where room records, seat tokens and intent logs are kept.

``Store`` is the seam between the room actors and persistence. The memory
store is the embedded default; a Redis store plugs in behind the same
interface to share rooms between processes.
"""

from server.store.base import LogEntry, NotOwner, RoomRecord, Store, StoreUnavailable
from server.store.memory import MemoryStore

__all__ = ["LogEntry", "MemoryStore", "NotOwner", "RoomRecord", "Store", "StoreUnavailable"]
