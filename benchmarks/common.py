"""Shared helpers of the benchmark scripts (re-exported from :mod:`clients.stats`)."""

from __future__ import annotations

from clients.stats import machine, percentile

__all__ = ["machine", "percentile"]
