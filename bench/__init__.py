"""Benchmarks: printed figures, no thresholds (see docs/benchmarks.md)."""
