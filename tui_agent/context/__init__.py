"""Knowing how full the model's context window is, and making room before it overflows.

Pure parts (no I/O): the window table (``window``), token estimates (``estimate``), what a
compaction keeps (``planner``), the compaction request and the compacted view (``summary``),
recognising a provider's overflow error (``overflow``), fitting tool output into what is left
(``fit``) and the state of a resumed session (``resume``). ``discovery`` asks a server for its
window. The agent runs compactions (agent/compactor.py); nothing here imports Textual.
"""
