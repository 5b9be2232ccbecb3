"""Detector logic of the pure core."""
