"""Screens pushed over the main one (the session browser)."""
