"""Floor 1: the normalized stream vocabulary and the turn assembler. No I/O, no Textual.

No face: import from the modules (``events``, ``progress``, ``turn``, ``assembler``, ``sse``).
"""
