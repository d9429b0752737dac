"""The offline demo model names an attached image (it cannot look at it), and answers a
read_file of an image as any other result, the images' user message after it notwithstanding."""

from __future__ import annotations

from tui_agent.conversation import AssistantMessage, Attachment, ToolResultMessage, UserMessage
from tui_agent.demo.brain import respond
from tui_agent.demo.texts import HELP
from tui_agent.images import prepare_image
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.stream.turn import ToolCall

from .image_helpers import png

SETTINGS = RequestSettings(model="demo", base_url="http://127.0.0.1:9/v1")


def test_the_demo_names_an_attached_image() -> None:
    image = prepare_image(png(16, 9), "shot.png")
    history = [UserMessage("@shot.png", (Attachment("shot.png", "", image=image),))]
    script = respond(request_builder("openai-chat")(history, [], SETTINGS).body)
    assert "`shot.png` is an image (image/png, 16x9 pixels)" in script.text


def test_the_demo_answers_a_result_whose_images_follow_it() -> None:
    image = prepare_image(png(4, 4), "pic.png")
    call = ToolCall("call_1", "read_file", '{"path": "pic.png"}')
    history = [
        UserMessage("read pic.png"),
        AssistantMessage("openai-chat", "", (call,)),
        ToolResultMessage(
            "call_1", "read_file", "[read_file: pic.png is an image]", images=(image,)
        ),
    ]
    body = request_builder("openai-chat")(history, [], SETTINGS).body
    assert body["messages"][-1]["role"] == "user"
    script = respond(body)
    assert script.text != HELP and "pic.png" in script.text
