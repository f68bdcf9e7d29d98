"""Numbers that belong to a non-LLM job, read before any language-model reader sees them.

"生成 81 帧的视频" is 81 frames, not 81 output tokens; "每天转写 500 小时音频" is 500
hours of audio, not a 500-hour rental; "AV1 转码 4K" names a codec and a resolution,
not a 4,096-token context; "30 步" is diffusion steps. Each unit here (``reading.lexicon``
keeps the words) claims its number and writes it to ``Scan.job_slots`` under the name
the engine's job families read (``images_per_day``, ``clips_per_day``, ``resolution``, ``steps``, ``frames``,
``clip_seconds``, ``audio_hours``, ``audio_hours_day``, ``audio_window_hours``, ``text_chars``,
``text_words``, ``documents``, ``streams``, ``dataset_images``, ``epochs``, ``repeats``, ``batch``,
``its``, ``codec``, ``fps``), so no later reader can take it for something it is not.
A rate's unit ("按分钟计费", "per minute price") is claimed as the price's unit
(``price_per``), never a job of 0.02 hours.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.jobs import Job
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

_COUNTER = iter(range(1_000))


def _number() -> str:
    """A number with an optional scale (5k, 1.5万), its groups named uniquely (n7, scale7)."""
    i = next(_COUNTER)
    return rf"(?P<n{i}>{NUMBER})\s*+(?P<scale{i}>million|thousand|[kmw万亿](?![a-z]))?"


_AUDIO = (
    r"(?:audio|recordings?|speech|calls?|podcasts?|interviews?|meetings?|lectures?|sermons?|voicemails?"
    r"|voice\s+(?:notes|memos)|broadcasts?|radio)(?![a-z])"
)
"""What an hour of recorded sound is called: "hours of podcasts" is audio to transcribe, not a rental."""

_SCALES = {"k": 1e3, "m": 1e6, "w": 1e4, "万": 1e4, "亿": 1e8, "million": 1e6, "thousand": 1e3}

# (slot, pattern): the first that claims a number keeps it.
_UNITS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("codec", lazy(r"(?<![a-z])(?:h\.?26[45]|hevc|av1|vp9)(?![a-z\d])")),
    (
        "streams",  # before resolutions: "200 live 1080p streams" is 200 streams *and* 1080p
        lazy(
            rf"{_number()}\s*+路|{_number()}(?=\s*+(?:live\s+)?(?:\d{{3,4}}p\s+)?(?:rtsp\s+)?"
            r"(?:streams?|cameras?|channels)(?![a-z]))"
            # live calls at once: "50 concurrent calls", "并发 20 个通话", "同时 30 通电话"
            rf"|{_number()}\s*+(?:concurrent|simultaneous|parallel|live)\s++(?:phone\s++|voice\s++|tts\s++|synthesis\s++)?"
            r"(?:calls|callers|sessions|conversations|channels|streams)(?![a-z])"
            rf"|(?:并发|同时)\s*+{_number()}\s*+(?:个|通)?\s*+(?:通话|电话|会话|呼叫)"
            rf"|{_number()}\s*+(?:个|通)\s*+(?:并发|同时(?:进行的)?)?\s*+(?:通话|电话|会话|呼叫)"
        ),
    ),
    (
        "resolution",
        lazy(
            r"(?<![\d.])(?P<w>\d{3,4})\s*[x×*]\s*(?P<h>\d{3,4})(?![\d])"
            r"|(?<![\d.])(?P<p>480|540|576|720|1080|1440|2160)p(?![a-z])"
            r"|(?<![\d.a-z])(?P<k>[248])k(?=\s*+(?:视频|影片|转码|直播|流|@|\d|$|[,，。、]"
            r"|\s*(?:video|stream|h\.?26|hevc|av1)))"
        ),
    ),
    (
        "price_per",
        lazy(
            r"(?:每|按|一)\s*+分钟\s*+(?:计费|收费|价格|的价|多少钱|怎么收|几块)"
            r"|(?<![a-z])(?:per|a|each|by\s+the)\s+minute\s+(?:price|rate|cost|billing|pricing)"
            r"|(?<![a-z])(?:price|rate|cost|billing|charged|billed)\s+(?:per|by\s+the)\s+minute(?![a-z])"
            r"|(?<![a-z])minute(?:ly)?\s+(?:rate|price|billing)"
        ),
    ),
    (
        "s_per_image",  # the user's own speed: "每张 8 秒", "8 秒一张", "8 s per image"
        lazy(
            rf"(?:每|一)\s*+张(?:图|图片)?\s*+(?:要|需要|大概|大约|约|得|跑|出)?\s*+{_number()}\s*+(?:秒|s(?![a-z]))"
            rf"|{_number()}\s*+秒\s*+(?:一|每)\s*+张"
            rf"|{_number()}\s*+(?:s|secs?|seconds?)\s*+(?:per|an|a|/)\s*+(?:image|picture|img)(?![a-z])"
            rf"|(?<![a-z])(?:an?|each|one)\s+image\s+takes\s+(?:about\s+|around\s+)?{_number()}\s*+"
            r"(?:s|secs?|seconds?)(?![a-z])"
        ),
    ),
    (
        "minutes_per_clip",  # "一条 10 分钟", "a clip takes 10 minutes", "10 min per video"
        lazy(
            rf"(?:每|一)\s*+(?:条|段|个)(?:视频|片段)?\s*+(?:要|需要|大概|大约|约|得|跑)?\s*+{_number()}\s*+分钟"
            rf"|{_number()}\s*+分钟\s*+(?:一|每)\s*+(?:条|段)"
            rf"|{_number()}\s*+(?:mins?|minutes?)\s*+(?:per|an|a|/)\s*+(?:clip|video)(?![a-z])"
            rf"|(?<![a-z])(?:an?|each|one)\s+(?:clip|video)\s+takes\s+(?:about\s+|around\s+)?{_number()}\s*+"
            r"(?:mins?|minutes?)(?![a-z])"
        ),
    ),
    (
        "rtf",  # the user's real-time factor: "RTF 0.1", "实时率 0.1" (compute time ÷ audio time)
        lazy(
            rf"(?<![a-z])(?:rtf|real[\s-]*+time\s+factor|实时率|实时因子)\s*+(?:of|is|为|是|=|:|：|约|大概|大约)?\s*+"
            rf"{_number()}"
        ),
    ),
    (
        "epoch_minutes",  # "一个 epoch 要 20 分钟", "每轮 20 分钟", "20 minutes per epoch"
        lazy(
            rf"(?:每|一)\s*+(?:个)?\s*+(?:epoch|轮)\s*+(?:要|需要|大概|大约|约|得|跑)?\s*+{_number()}\s*+分钟"
            rf"|{_number()}\s*+(?:mins?|minutes?)\s*+(?:per|an|a|each|/)\s*+epoch(?![a-z])"
            rf"|(?<![a-z])(?:an?|each|one)\s+epoch\s+takes\s+(?:about\s+|around\s+)?{_number()}\s*+"
            r"(?:mins?|minutes?)(?![a-z])"
        ),
    ),
    (
        "images_per_day",
        lazy(
            rf"(?:每天|一天|日均|每日)\s*+(?:要|需要|大概|约)?\s*+(?:出|生成|生)?\s*+{_number()}\s*+张"
            rf"|{_number()}\s*+(?:[a-z][a-z\d.\-]*+\s++){{0,2}}(?:images?|pictures?)\s*+(?:a|per|/)\s*+day"
        ),
    ),
    (
        "clips_per_day",  # a video service's volume: "每天 20 条", "日均生成 50 段视频", "200 clips a day"
        lazy(
            rf"(?:每天|一天|日均|每日)\s*+(?:要|需要|大概|约)?\s*+(?:出|生成|做|渲染|跑)?\s*+{_number()}\s*+"
            r"(?:条|段|个)(?:视频|短视频|片段)?"
            rf"|{_number()}\s*+(?:[a-z][a-z\d.\-]*+\s++){{0,2}}(?:clips?|videos?)\s*+(?:a|per|/)\s*+day"
        ),
    ),
    (
        "dataset_images",
        lazy(
            rf"{_number()}\s*+(?:张|幅)(?:图|图片|照片|样本)?(?=[^。]{{0,30}}?(?:训|epoch|轮|lora|dreambooth))"
            rf"|(?:训练集|数据集|素材|样本|图集)\s*+(?:有|共|一共|是|大概|约)?\s*+{_number()}\s*+张"
            rf"|{_number()}\s*+(?:training\s+)?(?:images|photos)(?=[^.]{{0,40}}?(?:train|epoch|lora|dreambooth))"
            rf"|(?<=on\s){_number()}\s*+(?:images|photos)"
            # the training word first: "SDXL LoRA 训练 30张图", "train a LoRA on my 40 photos"
            rf"|(?:训练|训|lora|dreambooth|微调|炼)[^。，,;；\d]{{0,12}}?{_number()}\s*+(?:张|幅)(?:图|图片|照片|样本)?"
            rf"|(?:train(?:ing)?|lora|dreambooth|fine-?tun(?:e|ing))[^.,;\d]{{0,24}}?{_number()}\s*+"
            r"(?:images|photos|pictures|pics)(?![a-z])"
        ),
    ),
    (
        "repeats",  # kohya's num_repeats: "每张重复 10 次", "10 repeats", "repeats 10"
        lazy(
            rf"重复\s*+{_number()}\s*+(?:次|遍)|{_number()}\s*+(?:次|遍)\s*+重复"
            rf"|{_number()}\s*+(?:x\s*+)?repeats?(?![a-z])|(?<![a-z])repeats?\s*+[=:：]?\s*+{_number()}"
            rf"|(?<![a-z])repeat(?:ed)?\s+{_number()}\s*+times(?![a-z])"
        ),
    ),
    (
        "batch",  # "batch 2", "batch size 4", "批大小 2", "bs=4"
        lazy(
            rf"(?<![a-z])(?:batch(?:[\s_-]*+size)?|bs)\s*+(?:of|is|为|是|=|:|：)?\s*+{_number()}"
            rf"|批(?:大小|量|次大小)\s*+(?:为|是|=|:|：)?\s*+{_number()}"
        ),
    ),
    ("steps", lazy(rf"{_number()}\s*+(?:步|steps?(?![a-z]))")),
    ("fps", lazy(rf"{_number()}\s*+(?:fps|帧\s*/\s*秒|帧每秒)(?![a-z])")),  # a rate, before frames
    ("frames", lazy(rf"{_number()}\s*+(?:帧|frames?(?![a-z]))")),
    (
        "clip_seconds",
        lazy(
            rf"{_number()}\s*+(?:秒|s(?![a-z])|-?\s*seconds?)(?:的)?\s*+(?:视频|影片|片段|clips?|videos?|each)"
        ),
    ),
    (
        "video_hours_month",  # a transcoding rate: "10,000 hours of video a month", "每月 5000 小时视频"
        lazy(
            rf"{_number()}\s*+(?:hours?|hrs?)\s+of\s+(?:[a-z0-9.]+\s+){{0,3}}?(?:video|videos|footage|content)"
            r"(?=[^?!,;]{0,24}?\s(?:a|per|each|every|/)\s*+month(?![a-z]))"
            rf"|(?:每月|每个月|一个月|月均)\s*+(?:要|需要|大概|约)?\s*+(?:转码|转|处理)?\s*+{_number()}\s*+(?:个)?\s*+小时"
            r"(?:的)?\s*+(?:视频|影片|录像|片源|素材)"
        ),
    ),
    (
        "video_hours_day",  # "2,000 hours of video a day", "每天 300 小时视频"
        lazy(
            rf"{_number()}\s*+(?:hours?|hrs?)\s+of\s+(?:[a-z0-9.]+\s+){{0,3}}?(?:video|videos|footage|content)"
            r"(?=[^?!,;]{0,24}?\s(?:a|per|each|every|/)\s*+day(?![a-z]))"
            rf"|(?:每天|每日|一天|日均)\s*+(?:要|需要|大概|约)?\s*+(?:转码|转|处理)?\s*+{_number()}\s*+(?:个)?\s*+小时"
            r"(?:的)?\s*+(?:视频|影片|录像|片源|素材)"
        ),
    ),
    (
        "audio_hours_day",  # a daily load, not a backlog: "每天500小时录音", "500 hours of calls a day"
        lazy(
            rf"(?:每天|每日|一天|日均|天天)\s*+(?:都)?\s*+(?:要|需要|大概|约|有|新增|产生)?\s*+"
            rf"(?:转写|转录|识别|处理|合成|生成)?\s*+(?:约|大概)?\s*+{_number()}\s*+(?:个)?\s*+小[时時]"
            r"(?:的)?\s*+(?:[\u4e00-\u9fff]{0,4}?(?:音频|录音|錄音|语音|語音|音讯|音訊)|播客|访谈|采访|通话|通話|会议|會議"
            r"|课程|讲座|电话|電話)"
            rf"|{_number()}\s*+(?:hours?|hrs?)\s+of\s+(?:[a-z]+\s+){{0,2}}?{_AUDIO}"
            r"(?=[^?!,;.]{0,24}?(?:\s(?:a|per|each|every|/)\s*+day(?![a-z])|\sdaily(?![a-z])))"
        ),
    ),
    (
        "audio_window_hours",  # the hours a day's audio must be done in: "8 小时内转完", "within 8 hours"
        lazy(
            rf"(?:在|要在|得在|需要在)?\s*+{_number()}\s*+(?:个)?\s*+小[时時]\s*+(?:之)?内"
            rf"|(?<![a-z])within\s+{_number()}\s*+(?:hours?|hrs?)(?![a-z])"
        ),
    ),
    (
        "audio_hours",  # what was recorded, not a rental: "2,000 hours of podcasts", "3000小时会议录音"
        lazy(
            rf"{_number()}\s*+(?:个)?\s*+小时(?:的)?\s*+(?:[\u4e00-\u9fff]{{0,4}}?(?:音频|录音|语音|音讯)"
            r"|播客|访谈|采访|通话|会议|课程|讲座|电话)"
            rf"|(?:转写|转录|识别)\s*+{_number()}\s*+(?:个)?\s*+小时"
            rf"|{_number()}\s*+(?:hours?|hrs?)\s+of\s+(?:[a-z]+\s+){{0,2}}?{_AUDIO}"
            rf"|{_number()}\s*+-?\s*+(?:hours?|hrs?)\s+(?:of\s+)?(?:[a-z]+\s+)?(?:audio|recordings?)\s+backlog"
            rf"|(?:audio|recordings?|transcription)\s+backlog\s+of\s+{_number()}\s*+(?:hours?|hrs?)(?![a-z])"
        ),
    ),
    (
        "text_chars",  # text to read aloud: "100 万字的小说", "字数 30 万"
        lazy(
            rf"{_number()}\s*+(?:个)?\s*+(?:汉)?字(?!节|幕|体|符|号|段|母)"
            rf"|(?:字数|文字量|文本量)\s*+(?:有|约|是|大概|共)?\s*+{_number()}"
        ),
    ),
    ("text_words", lazy(rf"{_number()}\s*+-?\s*+words?(?![a-z])")),  # "a 90,000-word book"
    (
        "documents",
        lazy(
            rf"{_number()}\s*+(?:亿)?\s*+(?:篇|份)(?:文档|文件|文章)?"
            rf"|{_number()}\s*+(?:documents?|docs|chunks|passages)(?![a-z])"
            # items counted by 笔/条/个 with what they are: "200 万笔商品", "1.5 亿条评论"
            rf"|{_number()}\s*+(?:笔|条|个)\s*+(?:商品|产品|数据|记录|文本|问答|评论|资料|句子|段落|sku|工单|简历|合同)"
            rf"|{_number()}\s*+(?:products?|items|records|rows|entries|skus|reviews|sentences|tickets)(?![a-z])"
        ),
    ),
    ("epochs", lazy(rf"{_number()}\s*+(?:个)?\s*+(?:epochs?|轮)(?![a-z])")),
    ("its", lazy(rf"{_number()}\s*+it\s*/\s*s")),
)


_ALWAYS = ("codec", "price_per")
"""Read whatever the job: a codec's name is never a number, a rate's minute never a duration."""

_ONLY: dict[str, frozenset[Job]] = {
    "repeats": frozenset({"image_train"}),
    "batch": frozenset({"image_train"}),
    "s_per_image": frozenset({"image_gen"}),
    "minutes_per_clip": frozenset({"video_gen"}),
    "clips_per_day": frozenset({"video_gen"}),
    "rtf": frozenset({"speech"}),
    "audio_hours_day": frozenset({"speech"}),
    "audio_window_hours": frozenset({"speech"}),
    "text_chars": frozenset({"speech"}),
    "text_words": frozenset({"speech"}),
    "epoch_minutes": frozenset({"image_train", "vision_train"}),
    "video_hours_month": frozenset({"video_encode"}),
    "video_hours_day": frozenset({"video_encode"}),
}
"""Units one family's request takes and no other reads: a LoRA run's repeats and batch
(elsewhere "batch 32" is a serving batch, read by its own reader), and the speeds a user
states for their own job (seconds an image, minutes a clip, an RTF, minutes an epoch)."""


def _value(match: re.Match[str]) -> float | None:
    for name, said in match.groupdict().items():
        if said is not None and name.startswith("n") and name[1:].isdigit():
            value = parse_number(said)
            scale = match.group(f"scale{name[1:]}")
            return value * _SCALES[scale] if value is not None and scale else value
    return None


def read_job_units(scan: Scan, job: Job) -> None:
    """Claim every job unit's number (and codec and resolution names) into ``scan.job_slots``.

    For a language-model job (or none named) only the codec and the rate's unit are read:
    there "20 路并发" is concurrency and "4k 上下文" a context, read by their own readers.
    """
    for slot, pattern in _UNITS:
        if job in ("llm_serve", "llm_train", "none") and slot not in _ALWAYS:
            continue
        if slot in _ONLY and job not in _ONLY[slot]:
            continue
        for match in scan.matches(pattern):
            groups = match.groupdict()
            if slot == "codec":  # "H.264 转 H.265": the first of two codecs is the source's
                said = match.group().replace(".", "").upper()
                first = scan.job_slots.setdefault("codec", said)
                if first != said:
                    scan.job_slots["source_codec"], scan.job_slots["codec"] = first, said
            elif slot == "resolution":
                said = match.group()
                scan.job_slots.setdefault(
                    "resolution", said if groups.get("w") is None else f"{groups['w']}x{groups['h']}"
                )
            elif slot == "price_per":
                scan.job_slots.setdefault("price_per", "minute")
            else:
                value = _value(match)
                if value is None:
                    continue
                scan.job_slots.setdefault(slot, int(value) if float(value).is_integer() else value)
            scan.claim(*match.span())
