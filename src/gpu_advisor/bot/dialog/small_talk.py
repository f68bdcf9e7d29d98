"""A greeting or a thank-you is answered as one, not with "I didn't catch that".

People open a support chat with "你好" or "在吗" and close it with "谢谢": the whole
message is small talk, so the reply greets (and says what the bot does) or thanks, then
asks the open question as usual. Only a message that is nothing but such words counts;
"你好，部署 7B" describes a job and goes to the readers.
"""

from __future__ import annotations

import re

_HELLO = re.compile(
    r"(?:你好|您好|哈喽|哈啰|嗨|在吗|在不在|有人吗|早上好|下午好|晚上好"
    r"|hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening)"
    # "帮我推荐一下配置": a request with nothing in it yet, greeted and asked the first question
    r"|(?:请|麻烦)?帮(?:我|忙)?(?:推荐|选|挑|看看)(?:一下|下)?(?:配置|机器|显卡|gpu|服务器|方案)?"
    r"|(?:can you |please )?(?:help me (?:choose|pick)|recommend)(?: me)?(?: a)?"
    r"(?: gpu| setup| config| server)?)"
    r"(?:呀|啊|哈|吧|there|!|！|~|\?|？|\s)*"
)
_THANKS = re.compile(
    r"(?:(?:非常|太)?(?:谢谢|多谢|感谢|谢了|谢啦|thanks?|thank you|thx|ty|cheers)"
    r"(?:你|您|啦|了|a lot|so much|very much)?(?:!|！|~|\s|。|\.)*)+"
)
_BYE = re.compile(r"(?:再见|拜拜|回头见|bye|goodbye|see you|see ya)(?:!|！|~|\s|。|\.)*")
_ACK = re.compile(
    r"(?:好的?|好吧|嗯+|ok(?:ay)?|收到|明白了?|了解|知道了|行|可以|got it|sounds good|cool|great|nice)"
    r"(?:!|！|~|\s|。|\.|，|,)*"
)


def small_talk(low: str) -> str | None:
    """The locale key answering ``low`` (normalised text) when it is only small talk, else None."""
    text = low.strip()
    pairs = (
        ("dialog.welcome", _HELLO),
        ("dialog.thanks", _THANKS),
        ("dialog.bye", _BYE),
        ("dialog.ack", _ACK),
    )
    for key, pattern in pairs:
        if pattern.fullmatch(text):
            return key
    return None
