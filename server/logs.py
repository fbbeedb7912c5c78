"""Structured logging: one JSON object per line on stderr.

Call sites log an event name and pass fields in ``extra={"fields": {...}}``;
the formatter merges them into the line, so logs can be filtered by room,
seat or code without parsing prose.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any


class JsonFormatter(logging.Formatter):
    """Formats a record as ``{"ts", "level", "logger", "event", ...fields}``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def configure(level: str = "info") -> None:
    """Send ``tablewire`` and uvicorn logs to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("tablewire", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False


def fields(**values: Any) -> dict[str, Any]:
    """The ``extra`` argument for a structured log call."""
    return {"fields": values}
