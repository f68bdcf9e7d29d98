"""A non-LLM job's model, picture size and bare amount, read from the normalised text.

The job families name their models in their own knowledge (``knowledge/diffusion.yaml``,
``speech.yaml``, ``embeddings.yaml``, ``vision.yaml``); the dialog hands those names here
and gets back which one the message names. A name counts only whole: "sd" is not the
start of "sdxl", "wan" not of "want", and Whisper's size words (tiny, small, large…)
only where "whisper" is written. Sizes said as "1024x768" or "720p" become pixels the
engine takes; a bare answer to a job's question ("5000", "2万", "5k") becomes its number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

WHISPER_ONLY = frozenset({"tiny", "base", "small", "medium", "large", "turbo"})
"""Speech model aliases that are plain words: a Whisper size only beside "whisper"."""

UNSIZED: dict[str, tuple[str, ...]] = {
    "image_gen": (
        "playground",
        "sd 2.1",
        "sd2.1",
        "stable diffusion 2.1",
        "sd 2",
        "pixart",
        "sana",
        "hidream",
        "qwen-image",
        "auraflow",
        "real-esrgan",
        "esrgan",
        "gfpgan",
        "codeformer",
        "segment anything",
        "sam",
    ),
    "image_train": ("playground", "sd 2.1", "sd2.1", "pixart", "sana", "hidream", "qwen-image"),
    "video_gen": (
        "mochi",
        "animatediff",
        "framepack",
        "stable video diffusion",
        "open-sora",
        "opensora",
        "sora",
        "kling",
        "可灵",
        "runway",
        "pika",
        "skyreels",
    ),
    "speech": (
        "xtts",
        "chattts",
        "gpt-sovits",
        "fish-speech",
        "fish speech",
        "bark",
        "musicgen",
        "声音克隆",
        "语音克隆",
    ),
}
"""Non-LLM models (and jobs) people name that a family has no specs for: named, the job is
answered "cannot size X" with the models it can, never sized as the family's default model
(Mochi is not Wan2.1, XTTS's speech synthesis is not Whisper's transcription). CosyVoice 2
and F5-TTS are sized (``speech.yaml``); synthesis said without a model is :data:`SYNTHESIS`."""

SYNTHESIS: tuple[str, ...] = (
    "tts",
    "text-to-speech",
    "text to speech",
    "语音合成",
    "語音合成",
    "合成语音",
    "合成語音",
    "文字转语音",
    "文字轉語音",
    "文本转语音",
    "有声书",
    "有聲書",
    "配音",
    "speech synthesis",
    "voice synthesis",
)
"""Words that ask for speech synthesis without naming a model: sized as the default synthesis
model (CosyVoice 2), never as Whisper's transcription."""


def synthesis_in(low: str) -> str | None:
    """The synthesis word ``low`` says ("语音合成", "TTS"), as matched, or None."""
    found = named_in([(word, [word]) for word in SYNTHESIS], low)
    return found[1] if found else None


_VIDEO_SIZES = {"480p": (832, 480), "540p": (960, 544), "720p": (1280, 720), "1080p": (1920, 1080)}
"""A video's height as people say it → the 16:9 width × height video models are run at."""

_WXH = lazy(r"(\d{3,4})x(\d{3,4})")
_P = lazy(r"(\d{3,4})p")
_BARE = lazy(
    rf"\s*(?P<n>{NUMBER})\s*(?P<scale>[kw万千]|thousand|million)?\s*"
    r"(?:张图片|张图|张|幅|个|篇|路|小时|images?|photos?|documents?|docs|streams?|hours?)?\s*"
    r"(?:呢|吧|啊|呀|then|instead)?\s*[。.!！?？]?\s*"
)
_SCALES = {"k": 1e3, "千": 1e3, "thousand": 1e3, "w": 1e4, "万": 1e4, "million": 1e6}


def unsized_in(family: str, low: str) -> str | None:
    """The name, as matched in ``low``, of a model or job in ``UNSIZED[family]`` the message names."""
    found = named_in([(name, [name]) for name in UNSIZED.get(family, ())], low)
    return found[1] if found else None


def model_in(models: Iterable[tuple[str, list[str]]], low: str) -> str | None:
    """The id of the model whose name (id, name or alias) ``low`` names; the longest name wins."""
    found = named_in(models, low)
    return found[0] if found else None


def named_in(models: Iterable[tuple[str, list[str]]], low: str) -> tuple[str, str] | None:
    """(model id, the span of ``low`` that names it) for the model ``low`` names, or None.

    The longest name wins ("sdxl turbo" over "sdxl"). The span is what the dialog finds again
    in the message as typed, to say the name back the user's way (``bot.dialog.spelling``)."""
    best: tuple[int, str, str] | None = None
    for model_id, names in models:
        for name in names:
            key = name.lower()
            if key in WHISPER_ONLY and "whisper" not in low:
                continue
            if _named(key, low) and (best is None or len(key) > best[0]):
                best = (len(key), model_id, key)
    if best is None:
        return None
    match = _pattern(best[2]).search(low)
    return best[1], (match.group().strip() if match else best[2])


def _pattern(name: str) -> re.Pattern[str]:
    body = r"[\s\-_]*".join(_escape(p) for p in name.split() if p)
    return lazy(r"(?<![a-z0-9])" + body + r"(?![a-z0-9])")


def _named(name: str, low: str) -> bool:
    if not name.split():
        return False
    return _pattern(name).search(low) is not None


def _escape(text: str) -> str:
    return "".join("\\" + c if not (c.isalnum() or "\u4e00" <= c <= "\u9fff") else c for c in text)


def pixels(said: object, *, video: bool = False) -> dict[str, int]:
    """ "1024x768" → width and height; "720p" → 1280×720 for a video, a square side otherwise."""
    if not isinstance(said, str):
        return {}
    low = said.lower()
    if (m := _WXH.fullmatch(low)) is not None:
        return {"width": int(m.group(1)), "height": int(m.group(2))}
    if video and low in _VIDEO_SIZES:
        width, height = _VIDEO_SIZES[low]
        return {"width": width, "height": height}
    if (m := _P.fullmatch(low)) is not None:
        side = int(m.group(1))
        return {"width": side, "height": side}
    return {}


def bare_amount(low: str) -> float | None:
    """The number a bare answer gives ("5000", "2万", "5k 张", "2 万张呢"), or None when it says more."""
    m = _BARE.fullmatch(low)
    if m is None:
        return None
    value = parse_number(m.group("n"))
    if value is None or value <= 0:
        return None
    scale = m.group("scale")
    return value * _SCALES[scale] if scale else value
