"""Floor 2: HTTP with retries before the first byte, the idle watchdog and raw-event recording."""

from ..stream.progress import RetryWait
from .retry import RetryPolicy, retry_after_seconds
from .stream import StreamLimits, stream_turn

__all__ = ["RetryPolicy", "RetryWait", "StreamLimits", "retry_after_seconds", "stream_turn"]
