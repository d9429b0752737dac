"""`tui-agent acp` as a subprocess, driven by the ACP SDK's own client, against the fake
provider: what it advertises, a prompt answered with reasoning and text, saved as any session,
listed by `tui-agent sessions` and session/list, loaded again (session/load) and continued;
the files and images a prompt holds."""

from __future__ import annotations

import base64
import io
import json
import sys

import pytest
from acp import RequestError
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    McpServerStdio,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from .acp_helpers import acp_agent
from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, Home, final, read_call

pytestmark = pytest.mark.heavy

COMMANDS = "available_commands_update"  # sent once a session is open, after the answer


async def test_initialize_advertises_what_is_served(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        async with acp_agent(home, server) as agent:
            init = agent.init
            with pytest.raises(RequestError) as unknown:
                await agent.conn.load_session(
                    cwd=str(home.workspace), session_id="nosuchsession", mcp_servers=[]
                )
            with pytest.raises(RequestError) as relative:
                await agent.conn.new_session(cwd="ws", mcp_servers=[])
    assert "nosuchsession" in str(unknown.value)
    assert "absolute" in str(relative.value.data)
    capabilities = init.agent_capabilities
    assert capabilities is not None
    assert capabilities.load_session is True
    assert capabilities.session_capabilities is not None
    assert capabilities.session_capabilities.list is not None
    prompts = capabilities.prompt_capabilities
    assert prompts is not None
    assert (prompts.image, prompts.audio, prompts.embedded_context) == (True, False, True)
    assert init.agent_info is not None and init.agent_info.name == "tui-agent"
    assert home.sessions() == []  # a client that never prompted leaves no session behind


async def test_a_text_prompt_streams_the_answer_and_is_saved(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(
                [
                    ("reasoning", "The person wants a greeting."),
                    ("text", "Hello from the fake model."),
                ],
                stop="end_turn",
            )
        )
        async with acp_agent(home, server) as agent:
            theirs = McpServerStdio(name="editor-fs", command="/bin/false", args=[], env=[])
            opened = await agent.conn.new_session(cwd=str(home.workspace), mcp_servers=[theirs])
            session_id = opened.session_id
            response = await agent.prompt(session_id, "say hello")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert agent.client.text() == "Hello from the fake model."
    assert agent.client.text("agent_thought_chunk") == "The person wants a greeting."
    kinds = agent.client.kinds()
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    assert "MCP servers are not used" in agent.stderr() and "editor-fs" in agent.stderr()
    (path,) = home.sessions()
    assert path.stem.startswith(session_id) or session_id in path.name
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    kinds = [r["type"] for r in records]
    assert "user" in kinds and "assistant" in kinds
    header = records[0]
    assert header.get("workspace") == str(home.workspace.resolve())


async def test_a_saved_session_is_listed_loaded_and_goes_on(home: Home) -> None:
    home.write_config('[approval]\nmode = "auto-read"\n')
    (home.workspace / "notes.txt").write_text("ship on friday\n", encoding="utf-8")
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(read_call(), stop="tool_calls"),
            final(server.protocol, "Friday."),
            final(server.protocol, "Still Friday."),
        )
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            await agent.prompt(session_id, "when do we ship?")
        listed = home.run_argv([sys.executable, "-m", "tui_agent.cli", "sessions"])
        assert listed.code == 0, listed.stderr
        assert session_id[:8] in listed.stdout
        async with acp_agent(home, server) as again:
            listed_here = await again.conn.list_sessions(cwd=str(home.workspace))
            listed_elsewhere = await again.conn.list_sessions(cwd=str(home.root))
            await again.conn.load_session(
                cwd=str(home.workspace), session_id=session_id, mcp_servers=[]
            )
            replayed = [u for u in again.client.updates if u.session_update != COMMANDS]
            response = await again.prompt(session_id, "sure?")
        server.assert_all_consumed()
    (info,) = listed_here.sessions
    assert (info.session_id, info.title) == (session_id, "when do we ship?")
    assert listed_elsewhere.sessions == []
    assert [u.session_update for u in replayed] == [
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert replayed[0].content.text == "when do we ship?"
    assert (replayed[1].tool_call_id, replayed[1].kind) == ("call_R", "read")
    assert replayed[2].status == "completed"
    assert "ship on friday" in replayed[2].content[0].content.text
    assert replayed[3].content.text == "Friday."
    assert response.stop_reason == "end_turn"
    assert again.client.text() == "Friday.Still Friday."
    sent = server.requests[-1].json
    assert "when do we ship?" in json.dumps(sent)  # the model saw the conversation so far
    assert len(home.sessions()) == 1


async def test_files_the_prompt_names_are_attached_as_the_apps_mentions(home: Home) -> None:
    (home.workspace / "notes.txt").write_text("ship on friday\n", encoding="utf-8")
    (home.root / "outside.txt").write_text("not for the model\n", encoding="utf-8")
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final(server.protocol, "Noted."))
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            blocks = [
                TextContentBlock(type="text", text="what do these say?"),
                ResourceContentBlock(
                    type="resource_link", name="notes", uri=(home.workspace / "notes.txt").as_uri()
                ),
                ResourceContentBlock(
                    type="resource_link", name="out", uri=(home.root / "outside.txt").as_uri()
                ),
                EmbeddedResourceContentBlock(
                    type="resource",
                    resource=TextResourceContents(
                        uri=(home.workspace / "draft.md").as_uri(), text="unsaved draft text"
                    ),
                ),
            ]
            response = await agent.conn.prompt(session_id=session_id, prompt=blocks)
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    sent = json.dumps(server.requests[-1].json)
    assert "ship on friday" in sent and "notes.txt" in sent
    assert "unsaved draft text" in sent and "draft.md" in sent
    assert "not for the model" not in sent  # outside the workspace: only its address
    assert (home.root / "outside.txt").as_uri() in sent
    assert "not attached" in agent.stderr()
    (user,) = [
        json.loads(line)
        for line in home.sessions()[0].read_text("utf-8").splitlines()
        if json.loads(line)["type"] == "user"
    ]
    assert [a["path"] for a in user["attachments"]] == ["notes.txt", "draft.md"]


async def test_compact_is_offered_and_summarizes_the_older_conversation(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY, require_tools=False) as server:
        server.script(
            final(server.protocol, "Friday, as planned. " * 20),
            final(server.protocol, "The release notes are due Thursday. " * 20),
            final(server.protocol, "SUMMARY: ship Friday, notes Thursday."),
        )
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            offered = await agent.client.seen(COMMANDS)
            await agent.prompt(session_id, "when do we ship? " * 20)
            await agent.prompt(session_id, "and the release notes? " * 20)
            before = len(agent.client.updates)
            response = await agent.prompt(session_id, "/compact keep the dates")
            answer = "".join(
                u.content.text
                for u in agent.client.updates[before:]
                if u.session_update == "agent_message_chunk"
            )
        server.assert_all_consumed()
    assert [c.name for c in offered.available_commands] == ["compact"]
    assert response.stop_reason == "end_turn"
    assert "compacted here (on request)" in answer, answer
    assert "keep the dates" in json.dumps(server.requests[-1].json)
    records = [json.loads(line) for line in home.sessions()[0].read_text("utf-8").splitlines()]
    assert [r["type"] for r in records].count("compaction") == 1
    assert not [r for r in records if r["type"] == "user" and r["text"].startswith("/compact")]


async def test_an_image_in_the_prompt_is_sent_as_the_apps_pasted_images(home: Home) -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "red").save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final(server.protocol, "A red rectangle."))
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            picture = ImageContentBlock(type="image", data=data, mime_type="image/png")
            words = TextContentBlock(type="text", text="what is this?")
            response = await agent.conn.prompt(session_id=session_id, prompt=[words, picture])
            broken = ImageContentBlock(type="image", data="bm90IGFuIGltYWdl", mime_type="image/png")
            with pytest.raises(RequestError) as refused:
                await agent.conn.prompt(session_id=session_id, prompt=[words, broken])
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert data in json.dumps(server.requests[0].json)  # sent byte for byte: it is small
    assert "image 1" in str(refused.value.data)
    assert len(server.requests) == 1  # the broken one was never sent
