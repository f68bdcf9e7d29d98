"""The supervisor of several server processes holds its port from before the children start
until it ends (issue 40): nobody else can bind it in between, port 0 becomes a real port that
the children are given, and the held socket takes none of their connections."""

from __future__ import annotations

import socket
import sys

import pytest

from gpu_advisor.bot.web.processes import on_port, reserve_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT")


def test_a_reserved_port_cannot_be_taken_by_another_program() -> None:
    with reserve_port("127.0.0.1", 0, "web") as held, socket.socket() as other, pytest.raises(OSError):
        other.bind(("127.0.0.1", held.getsockname()[1]))


def test_the_children_listen_on_the_reserved_port_and_get_every_connection() -> None:
    with reserve_port("127.0.0.1", 0, "web") as held:
        port = held.getsockname()[1]
        with socket.create_server(("127.0.0.1", port), reuse_port=True) as child:
            child.settimeout(5)
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                accepted, _ = child.accept()  # the held socket never listens: it takes none
                accepted.close()


def test_a_port_in_use_stops_the_supervisor_saying_so() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit, match=f"cannot listen on 127.0.0.1:{port}"):
            reserve_port("127.0.0.1", port, "web")


@pytest.mark.parametrize(
    ("argv", "given"),
    [
        (["web", "--port", "0", "--db", "w.db"], ["web", "--port=41234", "--db", "w.db"]),
        (["web", "--port=0"], ["web", "--port=41234"]),
        (
            ["telegram", "--webhook-url", "https://bot.example/t"],
            ["telegram", "--webhook-url", "https://bot.example/t", "--port=41234"],
        ),
    ],
)
def test_the_children_are_told_the_port_the_supervisor_holds(argv: list[str], given: list[str]) -> None:
    assert on_port(argv, 41234) == given
