"""The seed every command deals with when none is given: one value for all of them, so
two runs of different variants (or commands) left at their defaults hold the same deals
and compare deal by deal."""

from __future__ import annotations

DEFAULT_SEED = 1
