"""The app's widgets, one concept per module."""
