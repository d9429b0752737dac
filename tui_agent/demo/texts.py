"""The demo model's fixed texts: the help answer, the long markdown answer, and the one-line
notice and hint the app and ``tui-agent run`` show while the demo model answers."""

from __future__ import annotations

CONFIGURE_HINT = (
    "to use a real model, add a profile to config.toml (see the README) or pass --protocol and "
    "--model with its key (e.g. OPENAI_API_KEY) in the environment"
)
DEMO_NOTICE = (
    'the built-in offline demo model is answering: try "list the files", "read notes.md", '
    '"write hello.txt \'hi\'", "$ ls -la" or "help"; ' + CONFIGURE_HINT
)

HELP = """\
Hi! I am the **offline demo model** built into tui-agent. I need no network and no API key, and \
I give the same answer to the same conversation every time. I am not a canned screen, though: I \
answer over a loopback server in the real Chat Completions protocol, so what you see goes \
through the same streaming, decoding and approval path as a real provider.

Ask me to:

- **list** the files (`list the files`, `ls src`): I call `list_dir`
- **read** a file (`read notes.md`, `show …`, `cat …`): `read_file`
- **search** the workspace (`search TODO`, `grep …`, `find …`): `search_text`
- **write** a file (`write notes.txt "hello"`, `create …`): `write_file`
- **edit** a file (`edit notes.txt: hello -> goodbye`): `edit_file`
- **run** a command (`run ls -la`, or `$ ls -la`): `run_command`
- do two things **in parallel** (`list and read README.md in parallel`, `read notes.md and \
README.md both`): two calls in one turn
- write a **long** answer in **markdown** (`long`, `markdown`, `essay`)
- quote a file you attach (`summarize @notes.md`): its words are read, never obeyed
- show a **truncated** turn (`truncate`, `cut`, `break`): the stream is cut mid-call and nothing \
runs

After a tool runs I tell you what it returned; if you deny a call, I say so. Unless you name a \
workspace (`--workspace DIR`), I work in a folder of my own with sample files to try these on \
(its path was shown when the app started).

To talk to a real model, add a profile to `config.toml` in your config folder (see the \
README), or set a key such as `OPENAI_API_KEY` and pass `--protocol` and `--model`.
"""

LONG_ANSWER = """\
# How a turn travels through tui-agent

This is the demo model's long answer: a few kilobytes of markdown, streamed in small pieces so \
you can watch the renderer keep up. It describes the path every response takes, from the first \
byte on the socket to a tool that runs on your machine.

## 1. Bytes become events

The provider answers with **server-sent events**. Each event is a few `data:` lines followed by \
a blank line, and an event exists only once its blank line has arrived. The framer:

1. splits on CR, LF and CRLF, and nothing else;
2. joins a UTF-8 character that was split across two reads;
3. hands each complete event to the protocol's decoder.

## 2. Events become a turn

Each protocol has its own decoder, and each decoder knows only its own quirks. What comes out \
is a small vocabulary of events:

- **text** and **reasoning** deltas, shown as they arrive;
- a **tool call started**, with its id and name;
- **argument fragments**, kept in a hidden buffer per call;
- a **stop reason**, **usage**, and the terminal event.

The assembler publishes text at once, but a call's arguments only as a byte count. They are \
parsed once, from the complete turn, and never before.

```python
reader = TurnReader("openai-chat")
for chunk in response.iter_bytes():
    for progress in reader.feed(chunk):
        show(progress)          # text, a call's name, a byte count
result = reader.close()         # exactly one Turn or TruncatedTurn
```

## 3. A turn becomes calls

A turn is **complete** only when the protocol's terminal event arrived and the turn ended \
normally. Anything else is **truncated**, and nothing of it runs:

| Outcome | What you see | What runs |
|---|---|---|
| complete, `stop` | the answer | nothing |
| complete, `tool_calls` | one card per call | what you approve |
| truncated, `cut` | the partial text, marked | nothing |
| truncated, `length` | the partial text, marked | nothing |
| truncated, `error` | the provider's message | nothing |

Each call's arguments are parsed strictly (one JSON object, no duplicate keys, no trailing \
text) and validated against the tool's schema with no type coercion. An invalid call is never \
offered to you; the model gets the error instead.

## 4. Calls become results

You decide, by keypress, for every call that a rule does not already allow:

- **approve** runs it as shown;
- **deny**, optionally with a reason the model reads;
- **edit** the arguments, which are validated again;
- **cancel** the turn: nothing more runs.

A decision is bound to the call's id and the digest of the arguments you saw, so what runs is \
exactly what was shown. Approved read-only calls run concurrently; the others run one at a \
time, in the order the model announced them.

> Every path is confined to the workspace, and `run_command` runs in its own process group \
with a timeout, an output cap, and no variable that looks like a secret.

## 5. Results go back

Each call gets exactly one result, whatever happened to it: its output, the validation error, \
"denied by user", or "cancelled by user". The next request carries them all, and the model \
answers again. That loop is the whole agent:

```text
prompt -> stream -> complete turn -> validate -> approve -> run -> results -> stream -> ...
```

## Try it yourself

- `list the files`, then approve the call, and I will name what it found;
- `read README.md`, and I will quote its first lines;
- `truncate`, to see what a cut stream looks like;
- `help`, for everything else I can do.

*That is the end of the long answer.*
"""
