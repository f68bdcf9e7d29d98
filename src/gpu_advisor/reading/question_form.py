"""What kind of question a message asks, if any: yes/no, price, speed, or a comparison.

A sales engineer answers "一张 4090 包月多少" with a price, "一张 L40S 能跑 32B 吗" with a
verdict and "L40S 和 A6000 哪个好" with a comparison — never with "train or serve?". The
form is read from the normalised text (``text.normalize``: simplified, lower-case,
half-width) by a few linear patterns (bounded lazy gaps, no nested quantifiers, see
``shared/notes/linear-time-parsing.md``) together with what the slot readers found: a
comparison needs two cards, a price question a price word.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.reading import lexicon
from gpu_advisor.reading.requirements import Extraction
from gpu_advisor.text.lazy import lazy

_YES_NO_ZH = lazy(
    r"(能不能|可不可以|够不够|行不行|能否|是否|跑得动|跑得起|装得下|放得下|塞得下|跑不跑得动)"
    r"|(能|可以|够|行|装下|放下|跑动|跑得了|带得动)[^。？?！!]{0,60}?(吗|么|嘛)"
    # "需要几台 / 要几张卡": how many of the named card hold it, answered by the verdict's fix
    r"|(需要|要|得)(几|多少)\s*+(台|张|块|卡)"
)
_YES_NO_EN = lazy(
    # a version's dot ("llama3.1", "qwen2.5") does not end the sentence
    r"(?:^|[.!?,;:]\s*)(can|could|will|would|does|do|is|are)\s(?:[^.!?]|(?<=\d)\.(?=\d)){0,80}?"
    r"(?:\?|\b(?:fit|enough|handle|run|train|serve|hold|fine-?tune)\b)"
    r"|\b(?:enough|sufficient|big\s+enough)\b[^.!?]{0,60}?\?"
    # "serve gpt-oss-20b on a single 16GB card?": a bare verb asked with a question mark
    r"|(?:^|[.!,;:]\s*)(?:run|serve|host|fit|train|fine-?tune)\s(?:[^.!?]|(?<=\d)\.(?=\d)){0,80}?\?"
    # "how many H100s do I need", "needs how many": the verdict's card count answers it
    r"|\bhow\s+many\s+(?:[a-z0-9-]+\s+){0,2}?(?:gpus?|cards?|[a-z]{1,3}\d{2,4}[a-z]{0,2}s?)\b"
    r"|\b(?:needs?|takes?|requires?)\s+how\s+many\b"
)
_BEARS = lexicon.pattern(*lexicon.BEARS)  # "撑得住吗", "会不会 OOM": the lexicon's verdict classes
# "… on a single T4 — ok?", "…，可行吗": a verdict asked as a tag after the statement
_TAG = lexicon.pattern(*lexicon.VERDICT_TAG)
_MONEY = lexicon.pattern(*lexicon.MONEY)  # the one price vocabulary (``reading.lexicon``)
_PERIOD_HOW_MUCH = lexicon.pattern(*lexicon.PERIOD_HOW_MUCH)
_SPEED = lazy(
    r"每秒[^。？?！!]{0,8}?多少|多少\s*+(?:个\s*+)?token|tokens?\s*/\s*s\b|多快|速度(?:多少|怎么样|如何)"
    r"|一天[^。？?！!]{0,6}?(?:能|可以)?[^。？?！!]{0,4}?训[^。？?！!]{0,4}?多少"
    r"|how\s+fast|how\s+many\s+(?:tokens|toks?)\b|(?:tokens?|toks?)\s+(?:per|a)\s+(?:second|day)|throughput"
    r"|(?<![a-z0-9])(?<![0-9]\s)(?:toks?|t)\s*/\s*s\b|(?<![0-9]\s)(?<![0-9])\btps\b|每秒(?:能)?(?:出|吐|生成)|吞吐"
    # "how long on 8 H100s": a named card's time for the tokens (the verdict says it per method)
    r"|how\s+long|多久|多长时间|(?:跑|训|训练|要|需要|得)\s*+(?:个)?几天|几天能|多少天|几个小时"
)
_CAPACITY = lazy(
    r"(?:扛|撑|顶|支持|承受|带)(?:得住|得了)?[^。？?！!]{0,4}?(?:多少|几)(?:个|路)?\s*+(?:qps|并发|人|用户|请求)"
    r"|(?:最多|最大)[^。？?！!]{0,6}?(?:qps|并发|多少人|请求)|(?:qps|并发)\s*+(?:上限|最多|能到多少|多少)"
    r"|how\s+many\s+(?:qps|users|requests|concurrent)|max(?:imum)?\s+(?:qps|throughput|concurrency)"
    r"|how\s+much\s+(?:traffic|load|qps)|handle\s+how\s+many"
)
_COMPARE = lazy(
    r"哪个|哪张|哪款|哪种|还是|对比|比较|区别|差别|差多少|差距|快多少|相比|\bvs\.?\b|versus|which\s+(?:one|card|gpu|is)"
    r"|better|compare|difference"
)


@dataclass(frozen=True)
class QuestionForm:
    """The forms a message may take at once ("4090 能跑 14B 吗，多少钱" is yes/no and price)."""

    yes_no: bool = False
    price: bool = False
    speed: bool = False
    compare: bool = False
    capacity: bool = False  # "能扛多少 QPS", "how many users can it handle": a rate, not one stream


def question_form(low: str, ext: Extraction) -> QuestionForm:
    """The question forms of the normalised message ``low`` whose slots are ``ext``.

    "一天能训多少 token" names a period and 多少 but asks a speed: a period with 多少 is a
    price question only when no speed is asked; money words always are."""
    capacity = _CAPACITY.search(low) is not None
    speed = _SPEED.search(low) is not None or capacity
    return QuestionForm(
        yes_no=any(p.search(low) is not None for p in (_YES_NO_ZH, _BEARS, _TAG, _YES_NO_EN)),
        price=_MONEY.search(low) is not None or (_PERIOD_HOW_MUCH.search(low) is not None and not speed),
        speed=speed,
        compare=len(ext.gpus) >= 2 and _COMPARE.search(low) is not None,
        capacity=capacity,
    )
