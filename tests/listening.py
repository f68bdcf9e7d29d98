"""A listening socket for a server under test, bound before the server starts.

Picking a free port, closing it and letting the server bind it later races with every other
process on the machine (issue 40: "Address already in use" on a busy machine). The port is
bound here, on port 0, and the bound socket itself is handed to the server: PTB's webhook
server takes it as ``unix=`` (a ready socket), aiohttp as ``web.SockSite``.
"""

from __future__ import annotations

import socket


def loopback_listener() -> socket.socket:
    """A non-blocking TCP socket listening on 127.0.0.1 at a port the kernel picked."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)  # as an asyncio or tornado server that adopts a socket wants it
    return sock


def port_of(sock: socket.socket) -> int:
    port: int = sock.getsockname()[1]
    return port
