"""What a background task hands to a callback, read as an async iterator that ends with the task.

The loop runs the stream and the tool calls as tasks, so that Esc (or a caller that stops
listening) can cancel them, and passes their events on as they happen::

    events: TaskEvents[Item] = TaskEvents()
    task = events.follow(asyncio.ensure_future(work(on_item=events.put)))
    async for item in events:
        ...

Items come out in the order they were put; the iteration ends once the task has ended and
every item it put before ending has come out (the end is queued by the task's done callback,
after them).
"""

from __future__ import annotations

import asyncio
from typing import Any, Generic, TypeVar

T = TypeVar("T")
F = TypeVar("F", bound="asyncio.Future[Any]")


class _End:
    pass


_END = _End()


class TaskEvents(Generic[T]):
    def __init__(self) -> None:
        self._queue: asyncio.Queue[T | _End] = asyncio.Queue()

    def put(self, item: T) -> None:
        self._queue.put_nowait(item)

    def follow(self, task: F) -> F:
        """End the iteration once ``task`` is done (returned as given)."""
        task.add_done_callback(lambda _: self._queue.put_nowait(_END))
        return task

    def __aiter__(self) -> TaskEvents[T]:
        return self

    async def __anext__(self) -> T:
        item = await self._queue.get()
        if isinstance(item, _End):
            raise StopAsyncIteration
        return item
