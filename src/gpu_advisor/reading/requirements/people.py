"""Who will use it, said without the word "concurrent": "就我自己用", "我们仨", "a team of 30".

People size a service by who uses it, not by streams. Each person is counted as one
stream at the busiest moment (everyone may ask at once: the plan covers the busy case,
as ranges take their upper end in ``vague``), and the reply says so through the
``users_as_streams`` issue, so a team that never asks at once can say a smaller number.
Words for one, two and three people are read here; "for 50 users", "w/ 20 users",
", 20 users" and "a team of 30" carry their number ("20 users a day" is traffic, not people).
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.scan import Scan, plain
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

_NOT_AFTER_NUMBER = r"(?<![\d一二两三四五六七八九十百千万几])"
_FIXED: tuple[tuple[float, re.Pattern[str]], ...] = (
    (
        2.0,
        lazy(
            rf"我们?俩|咱俩|俩人|{_NOT_AFTER_NUMBER}(?:两个人|两人)|"
            r"(?<![a-z])(?:just\s+)?(?:me|myself)\s+and\s+(?:a|my|one)\s+"
            r"(?:colleague|friend|partner|coworker|co-worker|teammate)(?![a-z])|(?<![a-z])(?:the\s+)?two\s+of\s+us(?![a-z])"
        ),
    ),
    (
        3.0,
        lazy(rf"我们仨|咱们仨|仨人|{_NOT_AFTER_NUMBER}三个人|(?<![a-z])(?:the\s+)?three\s+of\s+us(?![a-z])"),
    ),
    (
        1.0,
        lazy(
            rf"就我(?:自己|一个人?)用?|只有我(?:自己|一个人?)?|我自己用|自己用|{_NOT_AFTER_NUMBER}(?:个人用|一个人用)|单人用|自用"
            r"|(?<![a-z])(?:just|only)\s+(?:me|myself)(?![a-z])|(?<![a-z])(?:for\s+)?(?:myself|personal\s+use)(?![a-z])"
            r"|(?<![a-z])single\s+user(?![a-z])"
        ),
    ),
)
_COUNTED = lazy(
    rf"(?<![a-z])(?:a\s+)?team\s+of\s+(?P<team>{NUMBER})"
    rf"|(?<![a-z])(?:for|to)\s+[~≈]?\s*+(?P<for>{NUMBER})\s+"
    r"(?:users|people|colleagues|employees|staff|members|developers|devs|engineers|folks)(?![a-z])"
    r"|(?:(?<![a-z])(?:with|actually|now|about|around|roughly|maybe|only|just|like)|(?<![a-z])w/|[,，;；~]|^|(?<=[^\d.\s])\s)"
    rf"\s*+(?P<with>{NUMBER})\s+(?:users|people|colleagues|employees|developers|devs|engineers)(?![a-z])"
    r"(?!\s*+(?:a|per|each|every|/)\s*+(?:day|week|month)(?![a-z]))"
    rf"|(?:[，,；;]|^|给|供|(?<=[^\d.\s])\s)\s*+(?<![\d.])(?P<zh3>{NUMBER})\s*+(?:个|位|名)?\s*+(?:用户|人|开发(?:者|人员)?|程序员|工程师|员工|同事)(?!\s*+的?\s*+(?:团队|小组|部门|公司|组))"
    r"(?!\s*+(?:每|一)\s*+(?:天|周|月))"
    rf"|(?P<zh>{NUMBER})\s*+(?:个)?\s*+人(?:的)?\s*+(?:团队|小组|部门|公司|组)"
    rf"|(?:团队|小组|部门|组里|公司)\s*+(?:有|共|一共)?\s*+(?P<zh2>{NUMBER})\s*+(?:个|位|名)?\s*+人"
)


# "全公司 500 人，但同时在线的估计 50 个", "500 users, 50 at once": the count at once is the
# load; the head count is understood and set aside.
_AT_ONCE = lazy(
    r"同时(?:在线|使用|用|访问|提问|请求)?\s*+(?:的|的人|的用户)?\s*+(?:估计|大概|约|大约|最多|也就)?\s*+"
    r"(?<![\d.])(?P<num>\d+)(?![\d.])\s*+(?:个|位|名|路)?\s*+(?:人|用户)?"  # digits: "七八个" is a range
    r"|(?<![\d.])(?P<num2>\d+)(?![\d.])\s*+(?:users?|people)?\s*+"
    r"(?:at once|at the same time|concurrently|simultaneously)(?![a-z])"
)
_HEAD_COUNT = lazy(
    rf"(?<![\d.])(?P<num>{NUMBER})\s*+(?:个|位|名)?\s*+(?:人|用户|员工|users|people|employees)(?![a-z])"
)
# "峰值每秒 10 个请求，平时 2 个": the off-peak figure is heard, the peak sizes the plan.
_OFF_PEAK = lazy(
    rf"(?:平时|平常|闲时|(?<![a-z])(?:normally|usually|off-peak))\s*+(?:每秒)?\s*+(?:大概|约)?\s*+"
    rf"{NUMBER}\s*+(?:个|次)?(?:请求)?"
)


def read_at_once(scan: Scan) -> None:
    """A count said to be at once is ``concurrency``; other head counts become context, and an
    off-peak rate beside a peak one is heard and set aside."""
    match = next(scan.matches(_AT_ONCE), None)
    if match is not None:
        scan.put_number(
            "concurrency", parse_number(match.group("num") or match.group("num2") or ""), match.span()
        )
        for other in scan.matches(_HEAD_COUNT):
            scan.claim(*other.span())
    for match in scan.matches(_OFF_PEAK):
        scan.claim(*match.span())


def read_people(scan: Scan) -> None:
    """Named groups of people become ``concurrency``, one stream each, said back."""
    for value, pattern in _FIXED:
        for match in scan.matches(pattern):
            _put(scan, value, match)
    for match in scan.matches(_COUNTED):
        counted = parse_number(next(g for g in match.groups() if g))
        if counted is not None:
            _put(scan, counted, match)


def _put(scan: Scan, value: float, match: re.Match[str]) -> None:
    scan.put_number("concurrency", value, match.span())
    if scan.slots.get("concurrency") != round(value) or _counted_outright(match):
        return
    scan.report("users_as_streams", "concurrency", said=match.group().strip(" \t,，;；~"), value=plain(value))


def _counted_outright(match: re.Match[str]) -> bool:
    """ "64 users", "20 个用户": the user counted the load themselves, and the echo line
    ("64 concurrent") says how it was read; a team, a pair or "for 50 users" is inferred,
    so only those are said back at length."""
    groups = match.re.groupindex
    return any(name in groups and match.group(name) for name in ("with", "zh3"))
