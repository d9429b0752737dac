"""The hardening suite: hostile input, faults and secrets, one file per group (see README.md)."""
