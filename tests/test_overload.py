"""Issues 24 and 40: one address, or one host's /64, flooding the web server with the slowest
messages it admits leaves everybody else served.

``make bench`` runs the same measurement larger (``bench/overload_bench.py``). Two server
processes, two turn workers each, one attacking address with sixteen requests in flight.
Before admission control the ordinary user's p50 went from milliseconds to about 8 s here.
"""

from __future__ import annotations

from pathlib import Path

from bench.overload_bench import measure, pct

# The CI machine is shared (two cores, several jobs): the attacker's own client and the
# turns it is allowed still take CPU from the ordinary user's, so the p50 may exceed twice
# the idle one by this much before the test calls it unfair.
NOISE_FLOOR_S = 0.05


def test_one_address_with_sixteen_slow_requests_in_flight_leaves_an_ordinary_user_near_idle(
    tmp_path: Path,
) -> None:
    result = measure(requests=8, attackers=16, processes=2, workers=2, tmp=str(tmp_path), rounds=2)
    assert pct(result.loaded, 0.99) < 1.0, result.report()
    assert pct(result.loaded, 0.5) <= 2 * pct(result.idle, 0.5) + NOISE_FLOOR_S, result.report()
    assert result.attacker.get("200", 0) > 0, result.report()  # it was an attack, not a refusal


def test_sixteen_addresses_of_one_64_sending_the_heaviest_admitted_messages_are_one_client(
    tmp_path: Path,
) -> None:
    """Issue 40's target: p50 <= 2 x idle + 50 ms and >= 95 % answered. Before grouping by network,
    43 % of the ordinary chats failed and the rest took 4.3 s (26 ms idle)."""
    result = measure(
        requests=10, attackers=16, processes=1, workers=2, tmp=str(tmp_path), rounds=2, network=True
    )
    assert result.answered >= 0.95, result.report()
    assert pct(result.loaded, 0.5) <= 2 * pct(result.idle, 0.5) + NOISE_FLOOR_S, result.report()
    assert result.attacker.get("200", 0) > 0, result.report()
