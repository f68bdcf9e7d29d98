"""What GPU job a message is about, from one ordered table of names and words.

An image, video, speech, embedding, vision or encoding job must never fall through to
"a language model served": "SDXL 每天 5000 张" sized as a chatbot answers the wrong
question. The table is read top to bottom and the first family whose names or words
appear wins; a family that trains (LoRA on SDXL, YOLO with epochs) is split from its
inference twin by the training words. A language model is the last guess, and only on
its own evidence (a model name, a parameter count, tokens, a chatbot) — a bare card
with a price is ``none``.
"""

from __future__ import annotations

import re
from typing import Literal

from gpu_advisor.reading.lexicon import pattern, word

Job = Literal[
    "llm_serve",
    "llm_train",
    "image_gen",
    "image_train",
    "video_gen",
    "video_encode",
    "speech",
    "embedding",
    "vision_train",
    "vision_infer",
    "none",
]

TRAINING = pattern(
    r"训练(?!好)|训(?!练好)|微调|精调|finetune|fine-tune|lora|qlora|dreambooth|kohya|sd-scripts|epoch",
    word(r"train(?:ing|s)?|fine[\s-]?tun(?:e|es|ing)|pretrain|dreambooth|lora|qlora|epochs?"),
)
"""A training job: the family's ``_train`` twin (LoRA alone trains: nobody serves "a LoRA")."""

IMAGE = pattern(
    r"stable\s*diffusion|(?<![a-z])sd\s*-?\s*(?:1\.5|15|2\.1|3\.5|3)(?![\d])|sdxl|(?<![a-z])sd(?![a-z])",
    r"flux|kolors|可图|qwen-?image|z-?image|hidream|hunyuan-?dit|hunyuandit|混元dit|comfy\s*ui|comfyui|forge|diffusers|midjourney|automatic1111|a1111|webui",
    r"出图|生图|文生图|图生图|张图|张的图|幅图|绘图|画图|电商图|illustrious",
    word(r"images?\s+(?:a|per)\s+day|text-to-image|image\s+gen(?:eration)?|(?<![\d,])[\d,k]+\s+images?|s/it"),
)
VIDEO = pattern(
    r"wan\s*2\.[12]|wan2|(?<![a-z])wan(?![a-z])|万相|hunyuan\s*video|hunyuanvideo|混元视频|cogvideo|ltx-?\s*video|ltx",
    r"mochi|framepack|animatediff|文生视频|图生视频|视频生成|生成视频|出视频|生成.{0,6}(?:视频|影片)|影片|条视频|\d+\s*帧|帧的视频",
    word(r"video\s+generation|text-to-video|image-to-video|i2v|t2v|clips?|frames"),
)
ENCODE = pattern(
    r"nvenc|nvdec|ffmpeg|转码|转几路|串流|视频编码|硬解|硬编|硬件(?:编|解)码|视频解码|h\.?264|h\.?265|hevc|(?<![a-z])av1(?![a-z])|多码率|推流|直播",
    word(r"transcod(?:e|es|ing)|encod(?:e|es|ing)|handbrake|jellyfin|plex"),
)
SPEECH = pattern(
    r"whisper|paraformer|sensevoice|funasr|语音|转写|转录|录音|音频|音讯|播客|转文字|转成文字|(?<![a-z])asr(?![a-z])|(?<![a-z])tts(?![a-z])|cosyvoice|说话人",
    word(r"transcri(?:be|bes|bing|ption)|speech|audio|recordings?|call-center|voice|podcasts?"),
)
EMBEDDING = pattern(
    r"(?<![a-z])bge|(?<![a-z])e5-|(?<![a-z])gte-|embedding|向量化|向量索引|rerank|重排|minilm|text-embeddings-inference",
    word(r"e5|gte|tei|embed(?:s|ding|dings)?|reranker|sentence-transformers"),
)
VISION = pattern(
    r"yolo|resnet|(?<![a-z])vit(?![a-z])|(?<![a-z])vit-|detr|目标检测|检测模型|分类模型|质检|摄像头|排序模型|推荐模型|ranking|ctr模型|图像分类|imagenet|coco",
    word(
        r"detection|detector|classifier|classification|cameras?|rtsp|ranking\s+model|resnet-?\d+|efficientnet"
    ),
)
LLM = pattern(
    r"qwen|llama|deepseek|gemma|mistral|mixtral|glm|chatglm|baichuan|yi-|gpt-oss|gpt-?2|gpt-?j|gpt-?neox?|phi-|internlm|kimi|minimax|qlora",
    r"(?<![腾\d])\d{1,3}(?:\.\d+)?\s*b(?![a-z])|\d+\s*亿参数|大模型|语言模型|llm|聊天|对话|客服|问答|rag|token|上下文|首字|并发|vllm|sglang|ollama|llama\.cpp|tensorrt-llm",
    r"pagedattention|kv\s*cache|continuous\s+batching|连续批处理|张量并行|decode|moe",
    word(
        r"chat\s?bot|chats|chat\s+(?:users|sessions|app|service|assistant)|coding\s+model|tokens?|vllm|tp=\d|concurrent\s+users"
    ),
)


ROWS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("video_encode", ENCODE),
    ("video", VIDEO),
    ("vision", VISION),
    ("image", IMAGE),
    ("speech", SPEECH),
    ("embedding", EMBEDDING),
    ("llm", LLM),
)
"""Families in the order they are tried: the more specific names first. A codec beats a
video model (an H.265 ladder is encoding), a video model beats an image tool (ComfyUI
runs Wan too), a detector beats an image count ("YOLO，10 万张图" is a dataset), and a
language model comes last, so "Whisper 用 vLLM" stays speech."""

_TRAINABLE: dict[str, tuple[Job, Job]] = {
    "image": ("image_train", "image_gen"),
    "vision": ("vision_train", "vision_infer"),
    "llm": ("llm_train", "llm_serve"),
}
_PLAIN: dict[str, Job] = {
    "video_encode": "video_encode",
    "video": "video_gen",
    "speech": "speech",
    "embedding": "embedding",
}


def job_of(low: str, *, named_model: bool = False, task: str | None = None) -> Job:
    """The job the normalised message ``low`` is about; ``none`` when it names none.

    ``named_model`` is true when the slot readers found a language model in the
    vocabulary (a name the table may not spell); ``task`` their train/infer reading.
    """
    for family, words in ROWS:
        if words.search(low) is None:
            continue
        if family in _PLAIN:
            return _PLAIN[family]
        train, infer = _TRAINABLE[family]
        trains = TRAINING.search(low) is not None or task == "train"
        return train if trains else infer
    if named_model:
        return "llm_train" if task == "train" or TRAINING.search(low) else "llm_serve"
    return "none"
