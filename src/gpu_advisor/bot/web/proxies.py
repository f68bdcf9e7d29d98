"""Who the client is behind reverse proxies: X-Forwarded-For, trusted only from listed proxies.

Every per-address limit (requests a minute, new conversations an hour, open connections,
the fair share of the turn workers) keys on the client address. Behind a reverse proxy the
TCP peer is the proxy, so without X-Forwarded-For the whole site shares one quota; but the
header is plain text any client can send, so believing it from anyone lets one client be
every address. The rule, as in nginx's ``set_real_ip_from`` + ``real_ip_recursive``:

- the operator lists the proxies' addresses or networks (``--trusted-proxy CIDR``, repeatable,
  or ``GPU_ADVISOR_TRUSTED_PROXIES``, comma-separated);
- only when the TCP peer is one of them is X-Forwarded-For read, right to left, skipping hops
  that are themselves trusted proxies: the first (right-most) untrusted hop is the client — the
  hops to its left were written by the client and prove nothing;
- with proxies listed, a peer outside the list that sends X-Forwarded-For is refused (it went
  around the proxy); with none listed the header is ignored (a client's own corporate proxy may
  add it, and the peer is then the only address we know);
- a hop may carry a port (``1.2.3.4:5678``, ``[2001:db8::1]:443``, as some proxies write it);
  a hop that is no address at all (``unknown``, garbage) where the client is read refuses that
  one request (``BadForwarding``, a 400), instead of lumping it with everybody else's garbage.

**Networks, not addresses** (issue 40): one host with an IPv6 /64 has 2^64 addresses, so the
fair share of the workers keys on the client's network (``network_of``): a /64 for IPv6 and a
/32 (the address) for IPv4 by default, both settable.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
HEADER = "X-Forwarded-For"
MAX_HOPS = 32  # a longer chain is not a deployment, it is padding


def parse_networks(values: Iterable[str]) -> tuple[str, ...]:
    """Each value as a normalised CIDR ("10.0.0.0/8", "127.0.0.1/32"); ValueError names a bad one.

    Accepts a comma-separated list in any value (the environment variable's form).
    """
    out: list[str] = []
    for value in values:
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            try:
                out.append(str(ipaddress.ip_network(part, strict=False)))
            except ValueError as exc:
                raise ValueError(f"{part!r} is not an IP address or CIDR network: {exc}") from None
    return tuple(out)


@lru_cache(maxsize=16)
def _networks(cidrs: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(c) for c in cidrs)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address, with or without a port ("1.2.3.4:80", "[::1]:443"); None if it is none."""
    text = text.strip()
    if text.startswith("["):  # [v6] or [v6]:port
        inside, bracket, port = text[1:].partition("]")
        if not bracket or (port and not _port(port)):
            return None
        text = inside
    elif text.count(":") == 1:  # v4:port (a bare v6 address has two colons or more)
        text, _, port = text.partition(":")
        if not _port(":" + port):
            return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return address.ipv4_mapped or address if isinstance(address, ipaddress.IPv6Address) else address


def _port(text: str) -> bool:
    digits = text[1:]
    return (
        text.startswith(":")
        and digits.isascii()
        and digits.isdigit()
        and len(digits) <= 5
        and 0 < int(digits) < 65536
    )


def network_of(address: str, v4_prefix: int = 32, v6_prefix: int = 64) -> str:
    """The client's network for fair shares: "2001:db8:1:2::/64"; the address itself if it is none."""
    ip = _address(address)
    if ip is None:
        return address
    prefix = v4_prefix if ip.version == 4 else v6_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def trusted(address: str | None, cidrs: tuple[str, ...]) -> bool:
    """``address`` is one of the listed proxies."""
    ip = _address(address) if address else None
    return ip is not None and any(ip in net for net in _networks(cidrs) if net.version == ip.version)


class ForgedForwarding(ValueError):
    """X-Forwarded-For from a peer that is not a listed proxy, while proxies are listed."""


class BadForwarding(ValueError):
    """The hop that names the client is not an address: the request cannot say who sent it."""


def client_of(peer: str | None, forwarded: str | None, cidrs: tuple[str, ...]) -> str:
    """The client address: the peer, or behind a listed proxy the right-most untrusted hop."""
    if not cidrs or forwarded is None:
        return peer or "unknown"
    if not trusted(peer, cidrs):
        raise ForgedForwarding(f"{HEADER} from {peer}, which is not a trusted proxy")
    hops = [h.strip() for h in forwarded.split(",")][-MAX_HOPS:]
    for hop in reversed(hops):
        ip = _address(hop)
        if ip is None:  # not written by a proxy of ours: this request cannot say who it is
            raise BadForwarding(f"{HEADER} hop {hop[:60]!r} is not an IP address")
        if not trusted(str(ip), cidrs):
            return str(ip)
    return str(_address(hops[0]))  # every hop a proxy of ours: the first one is the client
