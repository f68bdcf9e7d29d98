"""What an operator sets when running the web surface (``gpu-advisor web`` flags map onto it)."""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    db_path: str = "gpu-advisor.db"
    catalog: str | None = None  # the operator's price list, YAML or CSV; default: the shipped one
    cors_origins: tuple[str, ...] = ()  # sites that embed the widget, e.g. "https://rent.example"
    admin_token: str | None = None  # bearer token for PUT /api/admin/catalog; None disables it
    max_body_bytes: int = 64 * KIB
    max_catalog_bytes: int = 1024 * KIB
    ip_per_minute: int = 120  # every /api/ request from one client address
    session_per_minute: int = 20  # chat messages in one conversation
    trust_forwarded_for: bool = False  # behind a reverse proxy: the client is X-Forwarded-For's last hop
