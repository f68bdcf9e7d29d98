"""How much a machine will be used, as people say it next to a price: hours, a schedule, a volume.

"我要训练大约 300 小时" is a job of 300 hours; "每天只用 4 小时" / "a few hours a day" is a
schedule over the month (``engine.billing.schedule_hours``), never a 4-hour job; "每月用 200
小时" is hours a month. "用两年" / "for 3 years" is the period a purchase is compared over.
"每天 2000 万 token" / "5M tokens a day" is a volume, split when the message says which
part is input and which output ("输入 1500 万、输出 500 万", "15M in, 5M out"), and "每百万
token 输入 2 块、输出 8 块" is an API's two prices. "每天转写 3 小时录音" is audio minutes a day.

Read from normalised text (``text.normalize``) by small patterns, one pass each; a number
is converted only where it matched (``text.numbers.parse_number``). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

_HOUR = r"(?:个)?(?:小时|钟头|hours?|hrs?|h)(?![a-z])"
_DAY_BEFORE = r"(?:每天|一天|每日|天天|日均|平均每天)"
_DAY_AFTER = r"(?:\s?(?:a|per|each|/|every)\s?day|\s?/\s?天|\s?每天|\s?一天)"
_MONTH_BEFORE = r"(?:每月|一个月|每个月|月均)"
_MONTH_AFTER = r"(?:\s?(?:a|per|each|/|every)\s?month|\s?/\s?月)"
_RANGE = r"(?P<lo>[一二两三四五六七八九])(?P<hi>[一二两三四五六七八九])"  # 三四个小时: three or four

_PER_DAY = lazy(
    rf"{_DAY_BEFORE}[^,;，。\n\d{{}}]{{0,8}}?(?:{_RANGE}|(?P<n>{NUMBER}))\s?{_HOUR}"
    rf"|(?:(?P<lo2>\d{{1,2}})\s?(?:-|~|到|至)\s?)?(?P<n2>{NUMBER})\s?{_HOUR}{_DAY_AFTER}"
)
_FEW_A_DAY = lazy(
    rf"{_DAY_BEFORE}[^,;，。\n]{{0,8}}?几个?小时|(?:a )?few hours{_DAY_AFTER}|几个?小时{_DAY_AFTER}"
)
_PER_MONTH = lazy(
    rf"{_MONTH_BEFORE}[^,;，。\n\d]{{0,8}}?(?P<n>{NUMBER})\s?{_HOUR}|(?P<n2>{NUMBER})\s?{_HOUR}{_MONTH_AFTER}"
)
_HOURS = lazy(rf"(?P<n>{NUMBER})\s?{_HOUR}")
_MONTHS_OF_USE = lazy(
    rf"(?:用|使用|跑|折旧|for|over|use it for)\s?(?:了|上)?\s?"
    rf"(?P<n>{NUMBER})\s?(?P<u>年|个月|years?|months?)(?P<half>半)?(?![a-z])"
)
_TOKENS_A_DAY = lazy(
    rf"{_DAY_BEFORE}[^,;，。\n\d]{{0,6}}?(?P<n>{NUMBER})\s?(?P<s>[kmb]|million|billion)?\s?(?:个)?tokens?"
    rf"|(?P<n2>{NUMBER})\s?(?P<s2>[kmb]|million|billion)?\s?(?:(?:output|input|generated|completion|输出|输入)\s?)?"
    rf"tokens?(?: in total)?{_DAY_AFTER}"
)
_TOKENS_A_MONTH = lazy(
    rf"(?:{_MONTH_BEFORE}|月用量)[^,;，。\n\d]{{0,6}}?(?P<n>{NUMBER})\s?(?P<s>[kmb]|million|billion)?\s?(?:个)?tokens?"
    rf"|(?P<n2>{NUMBER})\s?(?P<s2>[kmb]|million|billion)?\s?tokens?{_MONTH_AFTER}"
)
_SPLIT = lazy(
    rf"(?:输入|input|in)\s?(?P<i>{NUMBER})\s?(?P<si>[kmb]|million)?[^\d]{{0,6}}?"
    rf"(?:输出|output|out)\s?(?P<o>{NUMBER})\s?(?P<so>[kmb]|million)?"
    rf"|(?P<i2>{NUMBER})\s?(?P<si2>[kmb]|million)?\s?(?:in|input)(?: tokens?)?(?:,? and |,? & |[, ]+)"
    rf"(?P<o2>{NUMBER})\s?(?P<so2>[kmb]|million)?\s?(?:out|output)"
)
_AUDIO = lazy(
    rf"(?:转写|识别|转录|transcribe)[^,;，。\n\d]{{0,4}}?(?P<n>{NUMBER})\s?(?P<u>{_HOUR}|分钟|minutes?|mins?)"
)
_CUR = r"(?P<{0}c>¥|\$|us\$|rmb|cny|usd)?\s?(?P<{0}>{1})\s?(?P<{0}a>元|块|美元|刀|usd|dollars?)?"
_API_SPLIT = lazy(
    r"(?:每百万|百万|per (?:1m|million)|/ ?1m)[^,;，。\n\d]{0,12}?(?:输入|input)\s?"
    + _CUR.format("i", NUMBER)
    + r"[^\d]{0,8}?(?:输出|output)\s?"
    + _CUR.format("o", NUMBER)
    + r"|"
    + _CUR.format("i2", NUMBER)
    + r"\s?(?:per|/) ?(?:1m|million)(?: tokens?)? (?:input|in)[^\d$¥]{0,8}?"
    + _CUR.format("o2", NUMBER)
    + r"\s?(?:per (?:1m|million)(?: tokens?)? )?(?:output|out)"
)
_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "million": 1e6, "billion": 1e9}
_ZH_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
MAX_HOURS_A_DAY = 24.0


@dataclass(frozen=True, slots=True)
class Use:
    """The hours, schedule, period and volumes a message states (None: not said)."""

    job_hours: float | None = None
    hours_per_day: float | None = None
    few_hours_a_day: bool = False
    hours_per_month: float | None = None
    months: int | None = None
    tokens_per_day: float | None = None
    input_per_day: float | None = None
    output_per_day: float | None = None
    audio_minutes_per_day: float | None = None
    api_input_per_million: float | None = None
    api_output_per_million: float | None = None
    api_currency: str | None = None


def read_use(low: str) -> Use:
    """Everything normalised ``low`` says about how much the machine will be used."""
    audio = _audio(low)
    per_day = None if audio else _per_day(low)  # "每天转写 3 小时录音" is audio, not the machine's hours
    per_month = _per_month(low)
    split = _split(low)
    daily = _tokens(low)
    return Use(
        job_hours=None if per_day or per_month or audio else _job_hours(low),
        hours_per_day=per_day,
        few_hours_a_day=per_day is None and _FEW_A_DAY.search(low) is not None,
        hours_per_month=per_month,
        months=_months(low),
        tokens_per_day=daily,
        input_per_day=split[0] if split else None,
        output_per_day=split[1] if split else None,
        audio_minutes_per_day=audio,
        **_api_prices(low),  # type: ignore[arg-type]  # the three api_* fields, typed there
    )


def _per_day(low: str) -> float | None:
    m = _PER_DAY.search(low)
    if m is None:
        return None
    if m["hi"]:
        value: float | None = float(_ZH_DIGIT[m["hi"]])  # 三四个小时: priced at the upper end
    else:
        value = parse_number(m["n"] or m["n2"])
    return value if value is not None and 0 < value <= MAX_HOURS_A_DAY else None


def _per_month(low: str) -> float | None:
    m = _PER_MONTH.search(low)
    value = parse_number(m["n"] or m["n2"]) if m else None
    return value if value is not None and 0 < value <= 720 else None


def _job_hours(low: str) -> float | None:
    m = _HOURS.search(low)
    value = parse_number(m["n"]) if m else None
    return value if value is not None and 0 < value <= 87_600 else None


def _months(low: str) -> int | None:
    m = _MONTHS_OF_USE.search(low)
    value = parse_number(m["n"]) if m else None
    if m is None or value is None:
        return None
    months = value * 12 if m["u"].startswith(("年", "year")) else value
    if m["half"]:  # "用一年半": a year and a half is 18 months
        months += 6 if m["u"] == "年" else 0.5
    return int(months) if 1 <= months <= 120 else None


def _scaled(num: str | None, scale: str | None) -> float | None:
    value = parse_number(num) if num else None
    return None if value is None else value * _SCALE.get(scale or "", 1.0)


def _tokens(low: str) -> float | None:
    m = _TOKENS_A_DAY.search(low)
    if m is not None:
        return _scaled(m["n"] or m["n2"], m["s"] or m["s2"])
    m = _TOKENS_A_MONTH.search(low)
    month = _scaled(m["n"] or m["n2"], m["s"] or m["s2"]) if m else None
    return month / 30 if month else None


def _split(low: str) -> tuple[float, float] | None:
    """Input and output tokens; "输入2块输出8块" (prices, not volumes) is passed over."""
    for m in _SPLIT.finditer(low):
        i = _scaled(m["i"] or m["i2"], m["si"] or m["si2"])
        o = _scaled(m["o"] or m["o2"], m["so"] or m["so2"])
        if i is not None and o is not None and i >= 1000 and o >= 1000:
            return i, o
    return None


def _audio(low: str) -> float | None:
    m = _AUDIO.search(low)
    value = parse_number(m["n"]) if m else None
    if m is None or value is None:
        return None
    return value * 60 if m["u"].lstrip("个").startswith(("小", "钟", "h")) else value


def _api_prices(low: str) -> dict[str, float | str | None]:
    """An API's two prices per million tokens, and the currency they were written in (CNY unless $)."""
    m = _API_SPLIT.search(low)
    if m is None:
        return {}
    i = parse_number(m["i"] or m["i2"])
    o = parse_number(m["o"] or m["o2"])
    marks = " ".join(
        filter(None, (m["ic"], m["ia"], m["oc"], m["oa"], m["i2c"], m["i2a"], m["o2c"], m["o2a"]))
    )
    usd = any(w in marks for w in ("$", "usd", "美元", "刀", "dollar"))
    if i is None or o is None:
        return {}
    return {"api_input_per_million": i, "api_output_per_million": o, "api_currency": "USD" if usd else "CNY"}


_API_WORDS = lazy(
    r"(?<![a-z])api(?![a-z])|调用|接口|按 ?token|per[- ]token|hosted"
    r"|千问|deepseek|gpt|claude|gemini|kimi|glm|豆包"
)


def mentions_api(low: str) -> bool:
    """A hosted API is in the question ("调 DeepSeek API", "per-token pricing"), so a token volume
    is priced against it; "一天能训 1B token 吗" names no API and is a training question."""
    return _API_WORDS.search(low) is not None
