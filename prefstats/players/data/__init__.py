"""Shipped data of the built-in players (evaluation tables)."""
