"""What the dialog used to hear itself, heard here: small phrases the answerers test.

Every pattern that lived in ``bot/dialog`` (28 in 12 files, issue 42) is read here, compiled
lazily once (``text.lazy``); the dialog imports the hearing and never writes a pattern.
Grouped by the dialog module that asks, so each reads as what that module needs.
"""

from __future__ import annotations

import re

from gpu_advisor.reading import lexicon
from gpu_advisor.text.lazy import lazy

# --- bot/dialog/faq.py ---------------------------------------------------------
HEARSAY = lazy(
    r"听说|据说|号称|宣传|网上说|有人说|看到说|我看到"
    r"|i heard|i read|read that|saw that|they say|people say|supposedly"
)
# A claim repeated for confirmation is a question even without a question mark ("T4 是 65T 对吧");
# hearsay ("听说…") is one too, unless the message goes on to describe a job to size.
CONFIRM = lazy(r"对吧|对吗|对不对|是吧|真的|不是吗|没错|\bright\b|\btrue\b|correct|isn'?t it|\byes\b|\?")

# --- bot/dialog/cheapest.py ----------------------------------------------------
CHEAPEST = lexicon.pattern(*lexicon.CHEAPEST)
"""The catalog's cheapest asked for: the lexicon's words, which ``reading.intent`` reads too."""

# --- bot/dialog/limits.py ------------------------------------------------------
SHEET_COMMAND_WORD = lazy(r"/analyze(?:@\w{1,64})?(?:\s|$)", re.IGNORECASE)

# --- bot/dialog/merge.py -------------------------------------------------------
ALSO = lazy(r"(?<![a-z])(?:also|as well|too|in addition)(?![a-z])|也要|也想|也得|还要|还想|同时|顺便|此外还")

# --- bot/dialog/money.py -------------------------------------------------------
BUDGET = lazy(r"预算|budget|以内|不超过|最多花|控制在|at most|afford")

# --- bot/dialog/prices.py ------------------------------------------------------
SWAP = lazy(r"换成|换用|改用|换到|改成|(?<![a-z])(?:switch(?:ing)? to|instead|move to)(?![a-z])")
SLICE = lazy(r"切片|\bmig\b|slice|分片|[1-7]g\.\d+gb")

# --- bot/dialog/requirements.py ------------------------------------------------
SIZE = lazy(r"\d+(?:\.\d+)?b(?![a-z])")

# --- bot/dialog/small_talk.py --------------------------------------------------
ACK = lazy(
    r"(?:好的?|好吧|嗯+|ok(?:ay)?|收到|明白了?|了解|知道了|行|可以|got it|sounds good|cool|great|nice)"
    r"(?:!|！|~|\s|。|\.|，|,)*"
)
BYE = lazy(r"(?:再见|拜拜|回头见|bye|goodbye|see you|see ya)(?:!|！|~|\s|。|\.)*")
THANKS = lazy(
    r"(?:(?:非常|太)?(?:谢谢|多谢|感谢|谢了|谢啦|thanks?|thank you|thx|ty|cheers)"
    r"(?:你|您|啦|了|a lot|so much|very much)?(?:!|！|~|\s|。|\.)*)+"
)
HELLO = lazy(
    r"(?:你好|您好|哈喽|哈啰|嗨|在吗|在不在|有人吗|早上好|下午好|晚上好"
    r"|hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening)"
    # "帮我推荐一下配置": a request with nothing in it yet, greeted and asked the first question
    r"|(?:请|麻烦)?帮(?:我|忙)?(?:推荐|选|挑|看看)(?:一下|下)?(?:配置|机器|显卡|gpu|服务器|方案)?"
    r"|(?:can you |please )?(?:help me (?:choose|pick)|recommend)(?: me)?(?: a)?"
    r"(?: gpu| setup| config| server)?)"
    r"(?:呀|啊|哈|吧|there|!|！|~|\?|？|\s)*"
)

# --- bot/dialog/typed.py -------------------------------------------------------
NOT_LABEL = lazy(r"[\s,，.。!！?？:：;；、~～]++")
ASIDE = lazy(r"[（(][^()（）]{0,40}[)）]")

# --- bot/dialog/verdicts.py ----------------------------------------------------
TRAIN = lazy(r"训|微调|finetun|fine-tun|train|lora|全参|预训练|pretrain")

# --- bot/dialog/words.py -------------------------------------------------------
OFFER_ID = lazy(r"(?P<name>[a-z0-9-]+?)-(?P<count>[0-9]+)x")
