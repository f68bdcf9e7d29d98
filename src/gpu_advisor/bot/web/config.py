"""What an operator sets when running the web surface (``gpu-advisor web`` flags map onto it)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from gpu_advisor.bot.web.proxies import parse_networks

KIB = 1024
HUMAN_URL_SCHEMES = ("https", "http", "mailto")
MIN_TOKEN_CHARS = 32  # a bearer token guards the price list: 32 random characters or more


def check_human_url(url: str) -> str:
    if urlsplit(url).scheme not in HUMAN_URL_SCHEMES or len(url) > 2000:
        raise ValueError(f"{url[:80]!r} is not an https:, http: or mailto: URL")
    return url


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    db_path: str = "gpu-advisor.db"
    catalog: str | None = None  # the operator's price list, YAML or CSV; default: the shipped one
    cors_origins: tuple[str, ...] = ()  # sites that embed the widget, e.g. "https://rent.example"
    admin_token: str | None = None  # bearer token for PUT /api/admin/catalog; None disables it
    # The widget's "talk to a human" link (https:, http: or mailto:); a script tag's
    # data-human-url overrides it. None: no such link.
    human_url: str | None = None
    max_body_bytes: int = 64 * KIB
    max_catalog_bytes: int = 1024 * KIB
    ip_per_minute: int = 120  # every /api/ request from one client address
    session_per_minute: int = 20  # chat messages in one conversation
    # New conversations one client address may start per hour (a session id the server has
    # not seen counts as new): 429 with Retry-After past it.
    sessions_per_ip_per_hour: int = 60
    # Reverse proxies in front (CIDRs): only from these is X-Forwarded-For read, and its
    # right-most hop that is not one of them is the client (bot.web.proxies). Empty: the TCP
    # peer is the client and the header is ignored.
    trusted_proxies: tuple[str, ...] = ()
    # Who may read /metrics without the admin token: client addresses in these CIDRs (a
    # Prometheus on this host by default). Anyone else needs 'Authorization: Bearer <admin token>'.
    metrics_from: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    # Chat turns run in this many worker processes, each turn within turn_deadline_s (past it:
    # a polite "too long" reply, the worker replaced). 0 runs them on the event loop, with no
    # deadline (tests); `gpu-advisor web` starts at least one.
    workers: int = 0
    turn_deadline_s: float = 10.0
    # Admission control (bot.admission): at most queue_limit engine requests wait for a worker
    # (None: as many as the workers drain within queue_wait_s at the measured service time),
    # at most per_client_queue of one client; one that has waited queue_wait_s since it
    # arrived gets 503 + Retry-After instead of a late answer. One client holds at most half
    # of the workers (at least one). A client is its network: an IPv4 address is grouped by
    # client_v4_prefix bits (32: each address alone), an IPv6 one by client_v6_prefix (64: one
    # host's /64 is one client, however many addresses it uses).
    # With the automatic queue, a request is admitted to wait only if the workers, at the pace
    # measured, will answer it within queue_target_s (None: within queue_wait_s); the rest get
    # 503 + Retry-After at once, so the turns answered under overload stay within about a second.
    queue_limit: int | None = None
    per_client_queue: int = 4
    queue_wait_s: float = 5.0
    queue_target_s: float | None = 0.8
    client_v4_prefix: int = 32
    client_v6_prefix: int = 64
    # Idle connections are closed after keepalive_timeout_s; one client address may hold at
    # most connections_per_ip at once (0: no limit; never applied to a trusted proxy, which
    # carries everybody's connections). Both keep an idle-connection flood from using up the file descriptors.
    keepalive_timeout_s: float = 15.0
    connections_per_ip: int = 64
    # Connections the kernel may hold unaccepted (capped by net.core.somaxconn). asyncio's default
    # of 100 overflowed when a thousand chats connected within 0.1 s: the dropped SYNs were sent
    # again after 1 s and 3 s, which a client saw as seconds of latency (issue 41).
    listen_backlog: int = 2048

    def __post_init__(self) -> None:
        object.__setattr__(self, "trusted_proxies", parse_networks(self.trusted_proxies))
        object.__setattr__(self, "metrics_from", parse_networks(self.metrics_from))
        if not (8 <= self.client_v4_prefix <= 32 and 16 <= self.client_v6_prefix <= 128):
            raise ValueError("a client network is an IPv4 /8 to /32 or an IPv6 /16 to /128")
        if self.human_url is not None:
            check_human_url(self.human_url)
        if self.admin_token is not None and len(self.admin_token) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"the admin token has {len(self.admin_token)} characters; use {MIN_TOKEN_CHARS} or more"
                " random ones (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
