"""Plain text made safe and readable: the escapes every surface uses, and times as shown."""
