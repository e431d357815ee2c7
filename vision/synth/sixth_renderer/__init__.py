"""Sixth synthetic renderer of drawn city boards (see README.md)."""
