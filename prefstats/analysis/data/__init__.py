"""Shipped data of the game analysis (the rating calibration)."""
