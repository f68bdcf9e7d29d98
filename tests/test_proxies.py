"""Issue 24, behind a proxy: X-Forwarded-For is read only from the listed proxies, right to left.

The unit rules first (``bot.web.proxies``), then a real aiohttp server where the request
comes from 127.0.0.1 (the "proxy") or 127.0.0.2 (a client that went around it), and last
the shipped compose file and systemd unit, which must name the proxy their web command
sits behind.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from pathlib import Path

import aiohttp
import pytest
import yaml

from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.proxies import BadForwarding, ForgedForwarding, client_of, network_of, parse_networks
from gpu_advisor.bot.web.server import listen

ROOT = Path(__file__).resolve().parent.parent
PROXY = ("10.0.0.0/8",)


def test_the_right_most_hop_that_is_not_a_proxy_is_the_client_whatever_the_client_wrote() -> None:
    forged = "1.2.3.4, 203.0.113.9, 10.0.0.7"  # the client wrote 1.2.3.4; our proxies added the rest
    assert client_of("10.0.0.5", forged, PROXY) == "203.0.113.9"


def test_forwarded_for_from_a_peer_outside_the_list_is_refused_when_proxies_are_listed() -> None:
    with pytest.raises(ForgedForwarding):
        client_of("198.51.100.4", "1.2.3.4", PROXY)


def test_with_no_proxies_listed_the_header_is_ignored_and_the_peer_is_the_client() -> None:
    assert client_of("198.51.100.4", "1.2.3.4", ()) == "198.51.100.4"


@pytest.mark.parametrize("hop", ["not-an-ip", "unknown", "1.2.3.4:port", "[2001:db8::1", "1.2.3.4:99999", ""])
def test_a_right_most_hop_that_is_no_address_refuses_that_request_instead_of_naming_a_shared_client(
    hop: str,
) -> None:
    with pytest.raises(BadForwarding):
        client_of("10.0.0.5", f"1.2.3.4, {hop}", PROXY)


@pytest.mark.parametrize(
    ("hop", "client"),
    [
        ("203.0.113.9:5678", "203.0.113.9"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("[2001:db8::1]", "2001:db8::1"),
    ],
)
def test_a_hop_written_with_a_port_names_its_address(hop: str, client: str) -> None:
    assert client_of("10.0.0.5", f"{hop}, 10.0.0.7", PROXY) == client


def test_ipv6_clients_are_grouped_by_their_64_and_ipv4_ones_stand_alone_by_default() -> None:
    one_host = {network_of(f"2001:db8:1:2::{n:x}") for n in range(1, 17)}
    assert one_host == {"2001:db8:1:2::/64"}
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")
    assert network_of("203.0.113.9") == "203.0.113.9/32" != network_of("203.0.113.10")
    assert network_of("203.0.113.9", v4_prefix=24) == network_of("203.0.113.10", v4_prefix=24)
    assert network_of("2001:db8:1:2::1", v6_prefix=48) == "2001:db8:1::/48"


def test_an_ipv4_mapped_peer_matches_its_ipv4_network() -> None:
    assert client_of("::ffff:10.0.0.5", "203.0.113.9", PROXY) == "203.0.113.9"


def test_a_setting_that_is_not_a_network_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"'10\.0\.0\.300'"):
        WebConfig(trusted_proxies=("10.0.0.300",))
    assert parse_networks(["127.0.0.1, 10.1.2.3/8"]) == ("127.0.0.1/32", "10.0.0.0/8")


# --- through a real server ------------------------------------------------------------
async def _post(port: int, source: str, forwarded: str) -> tuple[int, str]:
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    async with (
        aiohttp.ClientSession(connector=connector) as http,
        http.post(
            f"http://127.0.0.1:{port}/api/analyze",
            json={"text": "8 × A100 80G"},
            headers={"X-Forwarded-For": forwarded},
        ) as response,
    ):
        return response.status, await response.text()


async def test_each_forwarded_client_gets_its_own_quota_through_the_proxy_and_forgery_around_it_is_refused(
    tmp_path: Path,
) -> None:
    config = WebConfig(db_path=str(tmp_path / "web.db"), trusted_proxies=("127.0.0.1/32",), ip_per_minute=2)
    listening = await listen(build_app(config), config, port=0)
    try:
        through_proxy = [
            await _post(listening.port, "127.0.0.1", f"9.9.9.9, 203.0.113.{n}") for n in range(3)
        ]
        one_client = [await _post(listening.port, "127.0.0.1", "1.1.1.1, 203.0.113.50") for _ in range(3)]
        around = await _post(listening.port, "127.0.0.2", "203.0.113.77")
    finally:
        await listening.close()
    assert [s for s, _ in through_proxy] == [200, 200, 200]  # three clients, one request each
    assert [s for s, _ in one_client] == [200, 200, 429]  # one client, whatever its left hops say
    assert around[0] == 400 and "X-Forwarded-For" in around[1]


async def test_a_forwarded_hop_that_is_garbage_gets_a_400_for_that_request_alone(tmp_path: Path) -> None:
    config = WebConfig(db_path=str(tmp_path / "web.db"), trusted_proxies=("127.0.0.1/32",))
    listening = await listen(build_app(config), config, port=0)
    try:
        garbage = await _post(listening.port, "127.0.0.1", "203.0.113.5, <script>")
        with_port = await _post(listening.port, "127.0.0.1", "203.0.113.5:40123")
    finally:
        await listening.close()
    assert garbage[0] == 400 and "X-Forwarded-For" in garbage[1]
    assert with_port[0] == 200


# --- the shipped deployment ------------------------------------------------------------
def _flag_values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == flag]


def test_the_compose_web_command_trusts_exactly_the_gateway_its_host_proxy_comes_from() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    web_service = compose["services"]["web"]
    trusted = parse_networks(_flag_values(web_service["command"], "--trusted-proxy"))
    network = web_service.get("networks", ["default"])
    assert list(network) == ["default"]
    (ipam,) = compose["networks"]["default"]["ipam"]["config"]
    gateway = ipaddress.ip_address(ipam["gateway"])
    assert gateway in ipaddress.ip_network(ipam["subnet"])
    assert trusted == (f"{gateway}/32",)  # the gateway alone, not the other containers
    assert all(p.startswith("127.0.0.1:") for p in web_service["ports"])  # only the host's proxy gets in


def test_the_systemd_web_unit_trusts_loopback_where_it_listens_and_its_proxy_connects() -> None:
    unit = (ROOT / "deploy" / "gpu-advisor-web.service").read_text(encoding="utf-8")
    exec_start = shlex.split(re.search(r"^ExecStart=(.*)$", unit, re.M).group(1))  # type: ignore[union-attr]
    assert _flag_values(exec_start, "--host") == ["127.0.0.1"]
    assert set(parse_networks(_flag_values(exec_start, "--trusted-proxy"))) == {"127.0.0.1/32", "::1/128"}
