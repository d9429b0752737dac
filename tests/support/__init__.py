"""Helpers shared by the tests (a clock the test owns, ...)."""
