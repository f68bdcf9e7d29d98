"""The shared vocabularies every decision in ``reading/`` is made from, as data.

Like a spaCy ``PhraseMatcher``'s pattern file, each entry is a name and the words
(regex fragments, written in the normalised spelling: Simplified, lower-case,
half-width, see ``text.normalize``) that carry it. Readers used to keep their own
copies — three price-word lists that split on 7 of 11 ordinary phrases — so a word
added here is heard by every reader at once. Patterns are compiled on first use
(``text.lazy``), once.

English fragments that could sit inside a longer word are fenced with :func:`word`.
"""

from __future__ import annotations

import re

from gpu_advisor.text.lazy import any_of


def word(fragment: str) -> str:
    """``fragment`` as a whole ASCII word: no letter directly before or after it."""
    return rf"(?<![a-z])(?:{fragment})(?![a-z])"


# --- counts, comparisons, periods, currencies --------------------------------------
CARD_NAME = (
    r"(?<![a-z\d])(?:rtx\s*)?[2345]0[6789]0(?:\s*ti)?(?!\d)"
    r"|(?<![a-z\d])(?:a|h|l|t|b)\d{1,3}(?:s|g|x)?(?![a-z\d])"
)
"""A card's name as written ("4090", "rtx 3090 ti", "a100", "l40s", "h20"), known to the catalog or not."""
COUNT_UNITS = ("张", "块", "台", "卡", "片", "颗")
COMPARISON = (
    r"哪个|哪张|哪款|哪种|还是|对比|比较|区别|差别|差距|差多少|差很多|差得多|差在|强在|不同|差异|相比|比\s*+[^\s，,。？?]{1,12}?\s*+(?:快|慢|强|好|贵|便宜|高|低)|比起|跟.{0,8}?比",
    word(r"vs\.?|versus|compare[sd]?|comparison|difference|better|or|over|instead\s+of|rather\s+than"),
)
JOINERS = r"还是|或者?|跟|和|与|对比|vs\.?|versus|or|and"
"""Words that join two named things set side by side ("L4 or A10G", "3090 还是 4090")."""
PERIODS: dict[str, tuple[str, ...]] = {
    "hour": (
        r"每小时|一小时|按小时|小时价|卡时|按量|一个钟头|每个钟头",
        word(r"per\s+hour|an\s+hour|hourly|/h|/hr|by\s+the\s+hour"),
    ),
    "day": (r"每天|一天|按天|包日|日租", word(r"per\s+day|a\s+day|daily")),
    "week": (r"每周|一周|一个星期", word(r"per\s+week|a\s+week|weekly")),
    "month": (r"每月|一个月|包月|按月|月付|月缴|月租|每个月", word(r"per\s+month|a\s+month|monthly|/mo")),
    "year": (r"每年|一年|包年|按年|年付|年缴", word(r"per\s+year|a\s+year|yearly|annual(?:ly)?")),
}
CURRENCIES: dict[str, tuple[str, ...]] = {
    "CNY": (r"¥|￥|元|块钱|人民币|rmb", word(r"cny")),
    "USD": (r"\$|美元|美金", word(r"usd|dollars?")),
}

# --- what a question asks ------------------------------------------------------------
MONEY = (
    r"多少钱|什么价|啥价|价格|价钱|价位|报价|租金|费用|收费|几块钱|多少美元|月租|月费|怎么收|省多少|贵多少|便宜多少|怎么卖|咋卖|售价",
    r"(?:包月|包年|包日|按年付?|按月付?|年付|月付|按量)\s*+(?:呢|怎么算|怎么收|咋算)",
    r"(?:怎么|如何|怎样|咋)\s*+(?:计费|计价|收费|算钱|付费)|计费(?:方式|标准|规则)|有(?:没有)?(?:折扣|优惠)|打几折|几折",
    r"(?:每个?月|一个月|每年|总)?\s*+(?:合计|总计|一共|总共)(?:多少|要多少|几)?",
    r"how\s+much(?!\s+(?:vram|memory|显存))|what(?:'s| is| does)?[^.?!]{0,20}?(?:cost|price)",
    r"价差|差价|\bprices?\b|pricing|(?<![a-z])(?<!frame\s)(?<!error\s)rates?\s+(?:for|of|on)(?![a-z])|in\s+total|altogether|(?:总共|合计|total)\s*+[?？]",
    word(r"(?:monthly|total|the|our|my)\s+bill|(?:cost|price)\s+(?:difference|gap)"),
    word(r"what\s+(?:would|will|does|did|do|should)\s[^.?!]{0,40}?costs?|costs?\s+(?:me|us|them|you)"),
    word(
        r"any\s+discounts?|what'?s\s+the\s+damage|set\s+(?:me|us)\s+back|discounts?\s+(?:for|on|if)|how\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?:it|they|that|this|[\w-]+)\s+billed"
    ),
    word(r"(?:do|would|does)\s+(?:you|they|it)\s+charge|charge\s+(?:for|per)|going\s+(?:for|rate)"),
    r"what(?:'s|\s+is|\s+does)\s+(?:a|an|the)?\s*+[\w\s-]{1,24}?\s+(?:per|an?|by\s+the)\s+(?:hour|day|week|month|year)",
    word(
        r"(?:rent(?:al)?|hourly|monthly|daily|weekly|yearly|annual)\s+(?:cost|price|rate)s?|costs?\s+(?:for|of|per)|prices?\s+(?:for|of)"
    ),
)
"""Words that ask what something costs: the one price vocabulary (``question_form`` and
``intent`` both read it; the follow-ups read ``msg.intent``)."""
COMPARE_MONEY = (
    r"价差|差价|价格|价钱|价位|租金|多少钱|贵多少|便宜多少|贵几倍|费用|成本|划算|合算|性价比|cp\s*+值|省钱|更省|值得",
    word(
        r"prices?|pricing|costs?|cheaper|pricier|more\s+expensive|rent(?:al)?\s+(?:fee|price)s?"
        r"|cost[- ]effective|value\s+for\s+money|bang\s+for\s+(?:the|my)\s+buck"
        r"|better\s+(?:deal|value)|worth\s+it"
    ),
)
"""Money named inside a comparison: a noun that would not ask a price alone ("价差", "prices"),
or value weighed ("哪个更划算", "more cost-effective"), which is weighed on the two prices."""
_ZH_PERIODS = "|".join(words[0] for words in PERIODS.values())
PERIOD_HOW_MUCH = (
    rf"(?:{_ZH_PERIODS}|一个?月|几个月|三个月|一分钟|每分钟|季缴|季付|按季|每季度?|一季度?)[^。？?！!]{{0,12}}?(?:多少|几(?:块|千|万))",
)
"""A period with 多少: a price question only when no speed is asked ("一天能训多少 token").
Every Chinese period word of :data:`PERIODS` counts ("按天租要多少", "包日多少"), not a
shorter list of its own."""
SPEED_COMPLAINT = (
    r"(?:token|tok|it|帧|张)\s*+/\s*+s[^。？?！!]{0,16}?(?:为什么|为啥|怎么)(?:会)?(?:这么|那么)?(?:慢|低)",
    r"(?:只有|才)[^。？?！!]{0,12}?(?:token|tok|it|fps|帧)[^。？?！!]{0,12}?(?:为什么|为啥|怎么)(?:这么|那么)?(?:慢|低)",
    word(r"why\s+(?:is\s+it\s+)?so\s+slow|is\s+this\s+(?:speed\s+)?(?:normal|expected)"),
)
"""A measured speed complained of ("十几 token/s，为什么这么慢"): a speed question, not a
why-question about a notion, though it says 为什么."""
TIME_UNITS = "天|小时|钟头|分钟|毫秒|秒|周|星期"
"""Units a duration is asked in ("要几毫秒", "跑几个钟头")."""
SPEED = (
    r"(?:每|一)秒[^。？?！!]{0,8}?(?:多少|几)|多少\s*+(?:个\s*+)?token|tokens?\s*/\s*s|多快|快多少|速度|吞吐",
    r"要多久|多久|多长时间|延迟多少|延迟有多|快不快|慢不慢|几秒|几分钟|几个小时|多少天|几天能|能训多少|训多少|多少(?:分钟|秒|小时|帧)|一秒多少",
    rf"(?:几|多少)\s*+(?:个\s*+)?(?:{TIME_UNITS})(?:能|可以|才|跑完|训完|完成|[？?]|$)",
    rf"(?:要|需要|得|跑|训|花|大概|大约)\s*+(?:几|多少)\s*+(?:个\s*+)?(?:{TIME_UNITS})",
    r"\d[\d.]*\s*+(?:秒|分钟|小时|个小时|天)[^。？?！!]{0,12}?(?:正常吗|正常|合理吗|是不是太慢|算慢|算快)",
    r"it\s*/\s*s|s\s*/\s*it|多少\s*fps|fps\s*多少|what\s+fps|帧率",
    r"首(?:字|token)\s*+(?:延迟|时间)\s*+(?:多少|多久|多长|是多少|大概)",
    word(
        r"how\s+fast|how\s+quick(?:ly)?|time\s+to\s+first\s+token|what\s+(?:latency|ttft)|(?:latency|ttft)\s+(?:would|will|should)|how\s+long|throughput|real[\s-]?time\s+factor|rtf|tokens?\s+per\s+second|tok/s|tps"
    ),
    word(r"[\d.]+\s*[kmbt]?\s+tokens?\s+(?:per|a)\s+(?:day|hour|second)\s*\?"),
    word(
        r"(?:takes?|took|taking)\s+[\d.]+\s*(?:s|sec|seconds?|min|minutes?|h|hours?|days?)\b[^.]{0,40}?(?:normal|expected|slow|right)"
    ),
    word(r"how\s+many\s+[\w-]+\s*(?:/\s*s|per\s+second|a\s+second)"),
    word(
        r"seconds?\s+per\s+(?:image|clip)|minutes?\s+per\s+(?:clip|video)|per\s+epoch|s/it|docs?\s+per\s+second"
    ),
)
SPANS = "一天|每天|一小时|每小时|一个小时|一分钟|每分钟|一个月|每月|一周|每周|一晚上|一晚"
"""Spans of time an output is counted over ("一小时能出几张图", "一晚上能转写多少")."""
CAPACITY = (
    r"(?:扛|撑|支持|承受|带|服务|处理|接)(?:得住|得了)?[^。？?！!]{0,6}?(?:多少|几)\s*+(?:十|百|千|万)?\s*+(?:个|路|位|笔|条)?\s*+(?:qps|并发|人|用户|使用者|请求|查询|路|stream)",
    r"同时[^。？?！!]{0,8}?(?:多少|几)|(?:多少|几)\s*+(?:个|位)?\s*+(?:人|用户|使用者)\s*+同时|(?:能|可以)同时",
    r"多少并发|多少个?用户|多少人|几路|多少路|qps\s*+(?:上限|最多|多少)|并发\s*+(?:上限|最多|多少)",
    r"每秒(?:能)?处理多少|最多[^。？?！!]{0,10}?(?:几|多少)",
    rf"(?:{SPANS})(?:能|可以|最多)[^。？?！!]{{0,4}}?(?:出|生成|转写|转录|处理|撑|扛|服务|跑完|训完)[^。？?！!]{{0,8}}?(?:多少|几)",
    word(
        r"how\s+many\s+(?:concurrent|simultaneous|users|requests|qps|streams|rtsp|cameras?|images(?!\s*/\s*s)|hours|[\w-]+\s+clips|\d?\w*\s*camera)"
    ),
    word(
        r"how\s+many\s+(?:(?!for\b|do\b|gpus?\b|cards?\b)[\w.-]+\s+){0,2}(?:transcodes|sessions|calls|videos|documents|docs|queries)"
        r"|how\s+many\s+(?:[\w.-]+\s+){0,2}(?:images|pictures|clips|videos)\s+(?:per|a|an|each)\s+(?:hour|day|minute|night)"
    ),
    word(
        r"at\s+(?:once|the\s+same\s+time)|max(?:imum)?\s+(?:qps|concurrency|users|streams)|number\s+of\s+(?:concurrent|simultaneous|parallel)|requests\s+per\s+second\s+can|per\s+day\s+can|clips\s+per\s+day"
    ),
)
BEAR_VERBS = ("撑", "扛", "抗", "顶", "带", "跑", "训", "装", "放", "塞", "载", "吃", "hold\\s*+")
"""Verbs of bearing a load. With a potential complement (:data:`BEAR_RESULTS`) they ask
whether hardware can carry a job: 撑得住, 扛得住, 带得动, 装得下, 跑得起来, 吃得消, hold 得住.
A verb and a result are two classes, not a list of phrases: 顶得住 and 载得动 are heard
though no line of the corpus wrote them."""
BEAR_RESULTS = ("住", "动", "下", "进去", "进", "起来", "起", "消", "了")
"""The potential complements: 得 + one of these says "able to", 不 + one "unable to". One
followed by 的 describes a card ("跑得起的最便宜的卡") and asks no verdict."""
TROUBLE = ("爆", "oom", "炸", "溢出", "不够", "卡死", "跑不动", "装不下", "out\\s+of\\s+memory")
"""What goes wrong when hardware is too small: "会不会 OOM", "会不会爆" ask a verdict."""
VERDICT_VERBS_EN = (
    r"run(?:s|ning)?|fit(?:s|ting)?|handl(?:e|es|ing)|train(?:s|ing)?|serv(?:e|es|ing)|host(?:s|ing)?|load(?:s|ing)?",
    r"fine-?tun(?:e|es|ing)|transcod(?:e|es|ing)|do|cope|keep\s+up|get\s+away\s+with|be\s+able\s+to|q?lora|work|squeeze|cram",
    r"ok(?:ay)?\s+for|good\s+enough|sufficient|suffice|plenty",
)
"""English verbs a yes/no verdict question is asked with ("can a 3090 handle…", "would a
3090 be able to QLoRA…", "can I get away with 12GB…", "can one T4 keep up with…")."""
_BEAR = "|".join(BEAR_VERBS)
_RESULT = "|".join(BEAR_RESULTS)
NO_PROBLEM = ("没问题", "没压力", "问题不大", "有戏", "没戏", "稳")
"""Words that judge whether hardware copes: asked with 吗 or 不 ("T4 上跑没问题吗", "稳不稳"),
a verdict; with 吧 ("没问题吧") a claim put for agreement, which the myth rule hears."""
BEARS = (
    rf"(?:{'|'.join(NO_PROBLEM)})\s*+(?:吗|么|嘛|不)|问题大不大|(?:有没有|会不会有)问题",
    rf"(?:{_BEAR})得(?:{_RESULT})(?!的)|(?:{_BEAR})不(?:{_BEAR})得(?:{_RESULT})|(?:{_BEAR})不(?:{_RESULT})\s*+(?:吗|么|吧)",
    rf"会不会\s*+(?:{'|'.join(TROUBLE)})|(?:会|能)\s*+(?:oom|爆显存|爆掉)|(?:吃|费)不(?:吃|费)力",
)
"""A load borne or a trouble feared, asked: the Chinese verdict classes (``FIT`` and
``question_form``'s yes/no both hear them)."""
VERDICT_TAG = (
    r"(?:行|可以|可行|ok|okay)\s*+(?:吗|么|嘛|不)\s*+[?？]?\s*+$|可行(?:吗|么|不|[?？])",
    word(
        r"(?:ok(?:ay)?|possible|doable|feasible|viable|workable|realistic|fine|a\s+go|will\s+(?:it|that)\s+work)\s*\?+\s*$"
    ),
)
"""A verdict asked as a tag after a statement of hardware and job ("QLoRA 8B on a single T4 —
ok?", "2x A100 跑 70B int8，可行吗"): the statement is the question, the tag asks yes or no."""
FIT = (
    *VERDICT_TAG,
    r"能不能|可不可以|够不够|行不行|能否|会爆显存|爆显存吗|会不会太|勉强|吃力",
    *BEARS,
    r"(?:要|需要|得|占)\s*+(?:多大|多少)\s*+(?:的)?\s*+显存",
    r"(?:能|可以|够|行)[^。？?！!]{0,40}?(?:吗|么|嘛|不\s*+(?:[？?]|$))",
    r"(?:需要|要|得)(?:几|多少)\s*+(?:张|块|台|卡)",
    word(rf"(?:can|could|will|would|does|is)\s[^?]{{0,80}}?(?:{'|'.join(VERDICT_VERBS_EN)}|enough)"),
    word(
        r"enough|fit\s+on|how\s+many\s+\w+s?\s+do\s+i\s+need|how\s+many\s+(?:[\w.-]+\s+){0,2}(?:cards?|gpus?)\s+(?:for|to|do|does|would)"
        r"|needs?\s+how\s+many|any\s+chance\s+(?:to|of|i\s+can)|(?:is\s+it|it'?s)\s+(?:possible|feasible|doable)|feasible|doable"
    ),
    r"^(?:run|serve|train|fine-?tune|host|deploy|load)\s[^?,]{0,80}?\b(?:on|with)\b[^?,]{0,40}\?\s*$",
)
"""Words that ask a yes/no verdict: can this hardware run / train / serve this job. Built
from word classes (a bearing verb with its potential complement, a trouble asked with
会不会, an English modal with a verdict verb) so that a new phrasing of the same class is
heard without a line of its own."""
CONCEPT = (
    r"什么是|是什么|是什么意思|什么意思|什么叫|啥叫|啥是|何谓|是啥|啥意思|为什么|为何|为啥|怎么省|是怎么|原理|有什么用|有啥用|干嘛用|做什么用|是干什么的|是做什么的|是干嘛的|是干啥的|有必要吗|有什么区别|有什么差别|有啥区别|啥区别|有啥不同|什么区别",
    r"(?:掉|损失|降)\s*+(?:多少|几个?点)\s*+(?:精度|准确率|效果)|精度(?:损失|下降)多少",
    word(
        r"what\s+is|what\s+does|how\s+does|what'?s\s+(?!up\b|new\b|next\b|good\b|wrong\b|happening\b)(?:an?\s+)?[\w.-]+(?:\s+[\w.-]+)?\s*+[?？]?\s*+$|why\s+(?:does|is|do)|explain|what's\s+the\s+difference|what(?:'s|\s+is)\s+the\s+point\s+of|what(?:'s|\s+is)\s+[\w-]+\s+good\s+for"
    ),
)
MYTH = (
    r"是真的吗|真的吗|真的假的|真假|靠谱吗|对吗|对吧|是这样吗|是不是$|是不是[？?]|吧[？?]|吧$|现在还是吗|是吗[？?]?$",
    r"不是说[^。？?！!]{2,30}?(?:吗|么)",
    word(
        r"is\s+it\s+true|true\?|right\?|correct\?|still\s+the\s+case|i\s+heard|someone\s+said|legit\?|myth\??"
    ),
)
QUOTE_HELD = (
    r"(?:目前|现在|一直|我们|我)\s*+(?:每个?月|一个月|每小时)?\s*+(?:付|花|交)\s*+[¥$￥]?\s*+\d",
    r"报价\s*+[:：]|(?:供应商|厂商|机房|商家|对方|他们|有人|人家)(?:的|给我们?|跟我们?)?报",
    word(
        r"(?:we|i)(?:'re|\s+are|\s+am)?\s+(?:currently\s+)?pay(?:ing)?\s+[$¥€£₹]?\d|(?:was|were|got)\s+(?:quoted|offered)|got\s+an?\s+offer|offer\s+of"
        r"|quote\s+(?:for|of|from)|(?:vendor|provider|they)\s+(?:offers?|quoted?)"
    ),
)
"""A price the writer already pays or was quoted ("目前每月付 3000 块租 A100"): a quote to judge."""
TRUTH = (
    r"是真的吗|真的吗|真的假的|真假|是不是真的|(?:对吗|对吧|是吗|是不是|没错吧)\s*+[?？]?\s*+$",
    word(
        r"is\s+(?:it|that|this)\s+true|true\?|legit\?|is\s+it\s+a\s+myth|myth\s+that|(?:right|correct)\?\s*$"
    ),
)
"""Asking whether something is *true*, or a statement closed with an agreement tag ("…，对吧",
"…, right?"): a claim checked, even when the claim is a verdict ("L4 撑得住 14B 是真的吗" asks
about what someone said, not only whether the card holds it)."""
CLAIM_SOURCE = (
    r"听说|有人说|据说|(?:网上|网路上|网络上|大家|别人|很多人|好多人|都)(?:都)?(?:这么|这样)?说|不是说[^。？?！!]{2,30}?(?:吗|么)",
    word(r"i\s+heard|someone\s+said|people\s+say"),
)
QUOTE_VERDICT = (
    r"靠谱吗|靠不靠谱|贵不贵|贵吗|贵了吗|便宜吗|算便宜|算贵|合理吗|合理|正常吗|值不值|值吗|是不是坑|坑吗|坑|划算吗|合算吗|划不划算|合不合算|是不是亏|亏不亏|亏吗",
    word(
        r"(?:good|fair|decent|great|bad)\s+(?:deal|price|offer|rate)|fair|reasonable|worth\s+it|rip[\s-]?off|over-?priced|over-?charged|which\s+should\s+i\s+take"
    ),
)
BILLING_CHOICE = (
    r"(?:包月|包年|包日|按量|按分钟|按年|按月|年付|月付)[^。？?！!]{0,20}?(?:和|跟|与|还是|vs)[^。？?！!]{0,20}?"
    r"(?:包月|包年|包日|按量|按分钟|按年付?|按月付?|年付|月付|计费)[^。？?！!]{0,20}?(?:哪个|哪|怎么选|划算|省钱|便宜)",
    word(
        r"on-demand\s+vs|vs\s+on-demand|reserved|spot\b.{0,40}\bon-demand|yearly\s+commitment|commitment\s+worth|vs\s+paying\s+hourly"
    ),
)
BILLING: dict[str, tuple[str, ...]] = {
    "second": (r"按秒", word(r"per[\s-]second\s+billing|billed\s+per\s+second")),
    "minute": (r"按分钟|每分钟计费|/\s*分钟", word(r"per\s+minute|by\s+the\s+minute")),
    "spot": (r"竞价|抢占式?|spot", word(r"spot|preemptible|interruptible")),
    "discount": (
        r"打[一二三四五六七八九\d.]+折|(?<![\d.])\d(?:\.\d)?\s*+折|折扣|优惠价",
        word(r"discount(?:ed)?"),
    ),
    "hour": (
        r"按量|按需|以量计价|按小时|按时计费|小时价|卡时|/\s*小时|/\s*h(?![a-z])|/\s*hr",
        word(r"on-?demand|hourly|per[\s-]hour|(?:card|gpu)[\s-]hours?|pay(?:ing)?[\s-]as[\s-]you[\s-]go"),
    ),
    "day": (r"按天|包日|包天|日租", word(r"daily|per\s+day")),
    "week": (r"包周|按周", word(r"weekly")),
    "month": (r"包月|按月|月付|月租|月卡", word(r"monthly|per\s+month|/\s*mo(?:nth)?")),
    "year": (r"包年|按年|年付|承诺使用|预付费", word(r"yearly|annual(?:ly)?|per\s+year|reserved|commitment")),
}
"""Ways to be billed (not periods of use: "每天用 4 小时" is usage). Two of them side by
side with a choice word ask which billing is cheaper: a quote."""
OFFER = (
    r"报价|开价|要价|喊价|出价|报(?:了|给我们?|我们?)|给(?:我|我们)报|收(?:我|我们)",
    word(r"quot(?:e|es|ed|ing)|offer(?:s|ed|ing)?|charg(?:e|es|ed|ing)|asking|asks\s+(?:for\s+)?[$¥]?\d"),
)
"""Words of a price put to the writer by someone else (报价, 开价, 要价, "quoted", "offered",
"charges"): with an amount and a judging word the message weighs an offer (``intent._quote``)."""
BARE_AMOUNT = (
    r"(?<![\d.])\d[\d,.]*\s*+(?:万|千|k|w)?\s*+(?:元|块|刀)?\s*+(?:/\s*+|每个?|一个?)(?:月|小时|天|年|周|卡时)",
    r"(?:每|一)个?(?:月|小时|天|年|周|卡时)\s*+(?:要|收)?\s*+\d",
    word(r"\d[\d,.]*\s*k?\s*(?:/\s*|per\s+|an?\s+)(?:month|mo|hour|hr|h|day|year|week)"),
)
"""An amount billed over a period without a currency sign ("2500一个月", "一天 40", "1200 a
month", "0.45 an hour"): a price only beside an offer word, since "3090 一天" names a card."""
PRICE_JUDGED = (
    r"是不是(?:太|有点)?贵|算不算贵|偏贵|贵了点?(?:吗|么|吧)|高不高|便宜不便宜|(?:这样|这个价|这价)(?:贵|高)吗",
    word(
        r"(?:is\s+(?:that|it|this)|that'?s|it'?s|this\s+is)\s+(?:too\s+|very\s+|kind\s+of\s+|kinda\s+|a\s+bit\s+|really\s+)?"
        r"(?:expensive|pricey|steep|high|a\s+lot|much|overpriced|cheap)|expensive\s*\?|too\s+much\s*\?"
    ),
)
"""Judging words an offered price is asked with beyond :data:`QUOTE_VERDICT` ("is that
expensive?", "算不算贵"): the price is weighed, not looked up."""
CHEAPEST = (
    r"最便宜|最低价|最省钱|价格最低|入门价|起步价",
    word(r"cheapest|lowest[- ]priced?|least\s+expensive|entry[- ]level\s+price|most\s+affordable"),
)
"""The catalog's cheapest asked for ("你们最便宜的是什么", "what's your cheapest GPU"): a price
lookup when no job is named (the normalised text is Simplified: 最低價 reads 最低价)."""
QUOTE_VALUE = (
    r"划算|合算|亏了|亏不亏|亏吗|值不值|值得|省钱|能省多少|哪(?:个|种|样|個|種)?(?:更|比较)?(?:便宜|省|划算)|(?:比较|更|真的)省",
    word(
        r"which\s+(?:one\s+)?(?:is\s+)?cheaper|cheaper\s+overall|worth|better\s+deal|beat\s+(?:that|this|it)|saves?\s+more"
        r"|(?:do|would|will)\s+i\s+(?:actually\s+)?save|savings?"
    ),
)
"""Words that weigh a price for value (cheaper of two ways, worth it, can you beat it)."""
CHOICE = (r"选哪|哪(?:个|种|個|種|样|张|款|台|块|家)|还是|怎么选", word(r"which(?:\s+one)?|or|vs\.?|versus"))
PRICE_NUMBER = (
    r"(?<![\d,.])\d[\d,.]*\s*(?:万|千|k)?\s*(?:元|块|¥)|(?:[¥$₹€£]|nt\$|us\$)\s*\d|(?<![\d,.])\d[\d,.]*\s*(?:美元|刀|rupees?|euros?)",
    r"\d[\d.]*\s*/\s*(?:卡时|小时|分钟|h|hr|gpu-hour)|每卡每小时\s*\d",
)
BUY = (
    r"(?<!购)买(?!单)|购买|购入|自建|自己买|买卡|二手|(?<![a-z])收\s*+(?:[一两二三四五六七八\d]+)\s*+(?:张|块|台)|回本|电费|闲置",
    word(
        r"(?<!better\s)(?<!good\s)(?<!best\s)(?<!great\s)buy(?:ing)?|purchase|owning|build\s+a\s+(?:\dx\d+\s+)?rig|break[\s-]?even|pay\s?back|electricity|kwh"
    ),
)
API = (
    r"(?<![a-z])api(?![a-z])|按token|每百万token|百万\s*token|调用.{0,6}接口",
    word(
        r"per\s+(?:1m|million)(?:\s+(?:input|output))?(?:\s+tokens?)?|per\s+token|openrouter|pay\s+per\s+token"
    ),
)
CHEAPER = (
    r"(?:更|再)便宜|便宜(?:一)?(?:点|些)|再压|压一压|压低|省(?:一)?点|省钱|能不能省|少花点|太贵|有点贵|贵了(?!吗|么)|降一档|降一些|再降|性价比更高|超预算|超出预算|花不起|付不起",
    word(
        r"ch[ea]{1,3}pe?r|less\s+expensive|too\s+(?:expensive|pricey|costly|much)|pricey|for\s+less|more\s+than\s+i\s+(?:want(?:ed)?|can|planned)\s+to\s+(?:spend|pay)|over\s+(?:the\s+|my\s+)?budget|(?:something|anything|one|options?)\s+(?:under|below|for\s+less\s+than)|budget\s+option|cut\s+the\s+cost|go\s+lower|lower\s+(?:on\s+)?cost|save\s+money"
    ),
)
FASTER = (
    r"更快|快(?:一)?(?:点|些)|太慢|快一倍|再快|不够快|速度不够|提速",
    word(r"faster(?!-)|quicker|too\s+slow|speed\s+(?:it|this|that)\s+up|not\s+fast\s+enough"),
)
WHY = (
    r"为什么推荐|为啥推荐|为什么选|为啥选|为什么不用|为何不用|为啥不用|为什么不选|为什么是.{1,12}不是|凭什么|依据是什么|为什么推荐这|(?:推荐|选|选择)的?(?:理由|原因|依据)",
    rf"(?:为什么|为啥|为何)(?:是|选了?|推荐了?)\s*+(?:{CARD_NAME})|(?:为什么|为啥|为何)不(?:推荐|选|用|挑|考虑)|怎么(?:选|推荐|挑)了|(?:为什么|为啥|怎么)要\s*+(?:两|三|四|八|\d+)\s*+(?:张|块|台|卡)",
    word(
        r"why\s+this|why\s+not|how\s+come\s+you|why\s+(?:two|three|four|eight|\d+|so\s+many|multiple)\s+(?:gpus?|cards?)|how\s+did\s+you\s+(?:come\s+up\s+with|decide|pick|choose)|what\s+made\s+you\s+(?:pick|choose)|reasoning\s+behind|why\s+did\s+you\s+(?:pick|choose|suggest|recommend|go\s+with)"
    ),
)
ABSOLUTE = (
    r"一定|肯定|根本|永远|完全没用|没用|白费|必须",
    word(r"always|never|useless|pointless|no\s+point|capped\s+at|only\s+ever|must"),
)
"""Sweeping words a stated claim carries ("GeForce cards are useless for X?")."""
NAMES = (
    r"sdxl|sd\s*-?\s*(?:1\.5|2\.1|3\.5|3)|flux|kolors|whisper|paraformer|sensevoice|yolo\w*|resnet-?\d*|(?<![a-z])vit-?\w*",
    r"bge[\w-]*|(?<![a-z])e5[\w-]*|wan\s*2\.\d|hunyuan\s*video|cogvideox?|ltx-?video|comfyui|a1111",
    CARD_NAME,
)
"""Product names (models and cards) counted to tell a comparison of two named things."""
CORRECTION = (
    r"不是[^，,。]{1,15}[，,]\s*(?:而)?是|(?<!是)是[^，,。是]{1,12}不是[^，,。？?吗]{1,12}$|(?:说|写|搞|弄|打|填|输)错了|更正|改一下|我说的是|刚才.{0,4}错",
    r"不对[，,]",
    word(r"i\s+meant|correction|sorry,\s|not\s+\d[\w.]*\s*$|^actually,?\s+it'?s\b[^.]{0,60}?,\s*not\s"),
)
ORDER = (
    r"(?:就|那就|我要|帮我)?(?:租|下单|订)(?:这个|这台|它|吧)|就(?:它|这个|这台|这张)了|下单$|怎么开通|(?:怎么|如何)开机器|怎么(?:下单|租)|去哪(?:租|下单)|下单链接|联系销售|开发票|对公付款|(?:怎么|如何|找谁|在哪)(?:付款|付钱|交钱|充值|续费)|(?:能|可以)?(?:先)?试用|帮我开(?:一|两|\d)?\s*+(?:台|个|张)|付款方式|付款是|后付款|刷卡|汇款|转账|余额不够|销售(?:的)?(?:微信|电话|联系方式)|有销售|谈(?:个|一下)?(?:年付|价格|合同|折扣)|签合同",
    word(
        r"(?:order|book|rent)\s+(?:it|this|that|this\s+one)|how\s+do\s+i\s+(?:order|rent|book|pay|sign\s+up)|sign\s+up|talk\s+to\s+(?:sales|someone|a\s+(?:person|human))|let'?s\s+rent"
        r"|payment\s+method|wire\s+transfer|invoice|free\s+trial"
    ),
)
START_OVER = (
    r"(?:(?:算了|好吧|那|行)[,，\s]*)?(?:我们|咱们|我想|我要)?(?:重新开始|从头再来|从头开始|重来(?:一遍|一次)?|清空|换个需求|重新来过|重新问|换个问题(?:问)?)"
    r"(?:[,，。.!！\s]*(?:吧|重来吧?|换个需求|(?:刚才|前面|之前)(?:说)?的都不算))*[。.!！]*",
    r"(?:(?:ok|okay|never\s?mind)[,\s]*)?(?:let'?s\s+)?(?:start\s+over|start\s+again|start\s+fresh|restart|reset|clear"
    r"|(?:start\s+)?(?:a\s+)?new\s+(?:conversation|chat|request))(?:[,\s]*please)?[.!]*",
)
ABOUT_ME = (
    r"你(?:能|会|可以)(?:做|干|帮我做|帮我干)?(?:什么|啥|些什么)|你是谁|你是干什么的",
    word(r"what\s+can\s+you\s+(?:do|help\s+with)|who\s+are\s+you|what\s+are\s+you"),
)
"""Questions about the assistant itself ("你能做什么", "what can you do?"): small talk, though
they say 能 or "can" as a verdict question does."""
SMALL_TALK = (
    r"^(?:你好|您好|哈[啰喽罗]|嗨|在吗|谢谢|多谢|感谢|好的|明白|收到|你是谁|天气)",
    r"你是谁|哪家公司|讲个笑话|天气",
    word(
        r"^(?:hi|hello|hey|thanks|thank\s+you|who\s+are\s+you|tell\s+me\s+a\s+joke|good\s+(?:morning|night))"
    ),
)
CONCEPT_FIRST = (
    r"为什么|为何|为啥|什么是|是什么|什么叫|啥叫|啥是|何谓|是啥|原理|怎么省|是怎么|有啥用|有什么用|干嘛用|是干什么的|是干嘛的",
    word(
        r"why\s+(?:does|is|do)|how\s+does|explain|what\s+does\s+[\w-]+\s+(?:actually\s+|really\s+)?do|what(?:'s|\s+is)\s+[\w-]+\s+good\s+for|what(?:'?s|\s+is)\s+(?:a\s+|the\s+)?(?:[\w-]+[,，]?\s+){0,2}(?:and|in)\b"
        r"|what(?:'?s|\s+is)\s+(?:an?\s+)?[\w.-]+\s*+[,，?？]\s*+(?:and\s+)?(?:do|does|can|could|is|are|should|will|would|how|why)(?![a-z])"
    ),
)
"""A how-or-why question about a notion, heard before a speed or price word it may contain
("张量并行为什么吞吐反而低" asks why, not how fast)."""
SIZING = (
    r"租什么|用什么卡|什么卡|什么配置|推荐|怎么配|怎么选卡|几张卡|哪种卡",
    word(r"what\s+(?:should\s+i\s+)?rent|what\s+gpu|which\s+gpu|recommend|what\s+do\s+i\s+rent|setup"),
)

# --- the job's own units --------------------------------------------------------------
IMAGES = (r"张图|张图片|出图|生图|幅图|images?\b", word(r"images?|pictures?|photos?"))
FRAMES = (r"帧", word(r"frames?"))
STEPS = (r"步|steps?", word(r"steps?"))
ITS = (r"it\s*/\s*s|s\s*/\s*it",)
CLIP_SECONDS = (
    r"秒(?:的)?(?:视频|影片|片段)|\d\s*s\s+(?:clip|video)",
    word(r"seconds?\s+(?:each|clips?|videos?)|s\s+clips?"),
)
AUDIO_HOURS = (
    r"小时(?:的)?(?:音频|录音|语音|音讯)|小时音频",
    word(r"hours?\s+of\s+(?:audio|recordings?|speech)"),
)
DOCUMENTS = (r"篇(?:文档|文件|文章)|条文本|万篇|文档", word(r"documents?|docs|chunks|passages"))
STREAMS = (r"路(?:流|摄像头|视频|直播|并发|1080p|4k)?|串流", word(r"streams?|cameras?|channels?"))
EPOCHS = (r"个?epoch|轮", word(r"epochs?"))
CODECS = (r"h\.?26[45]|hevc|av1|vp9|4k|8k|1080p|720p|480p",)


def pattern(*fragments: str) -> re.Pattern[str]:
    """One lazy pattern for a vocabulary (a tuple of fragments)."""
    return any_of(*fragments)
