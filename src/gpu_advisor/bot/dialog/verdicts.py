"""Yes/no questions about named hardware get a verdict first, not a rental plan.

"一张 4090D 能训练 7B 吗", "can one A100 serve Llama 3 70B?", "8 卡 H100 一天能训 10T token 吗":
the user names the cards (and a count) and a model or a token count, and asks whether
it works. The answer is ``engine.verdict`` for exactly that hardware — per training
method (full / LoRA / QLoRA) or per weight format for serving — with the memory it
needs against what the card holds and the speed of the fastest way that fits, then an
offer to size a rental (``/plan``, the slots are kept). Detection is two linear
patterns over the normalised text: a question form (能…吗, 可以…吗, 够不够, can …,
will … fit, is … enough) plus a card and a model or token count the reader found.
"""

from __future__ import annotations

import re

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Flow
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.verdict import HardwareVerdict, MethodVerdict, verdict
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import Extraction

_TRAIN = re.compile(r"训|微调|finetun|fine-tun|train|lora|全参|预训练|pretrain")
DEFAULT_MODEL = "llama-2-7b"  # the size a "tokens a day" question usually means (engine.myths too)


def answer(dialog: Flow, state: ConversationState, msg: Message) -> Answer | None:
    """The verdict for a yes/no hardware question, or None when the message is not one."""
    if not msg.form.yes_no:
        return None
    ext = msg.ext
    workload = _workload(ext, msg.low)
    if workload is None:
        return None
    try:
        result = verdict(workload, dialog.kb)
    except (EngineError, ValueError):
        return None  # an unknown model or card: the ordinary flow says what was not understood
    new = _remember(state, ext, workload)
    lines = _lines(new.lang, result, dialog, "model" not in ext.slots and "params_b" not in ext.slots)
    content = Content(title=_title(new.lang, result, dialog), summary=lines)
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return dialog.reply(new, "answer", content, [button]), new


def _workload(ext: Extraction, low: str) -> Workload | None:
    """The workload the question is about: its card, its model (or a 7B for a token count), its task."""
    slots = ext.slots
    has_model = any(k in slots for k in ("model", "params_b", "hf_config"))
    if "gpu" not in slots or not (has_model or "train_tokens" in slots):
        return None
    fields = {k: v for k, v in slots.items() if k in Workload.model_fields}
    if not has_model:
        fields["model"] = DEFAULT_MODEL
    trains = "train_tokens" in slots or _TRAIN.search(low) is not None
    fields["task"] = "train" if trains else "infer"
    try:
        return Workload.model_validate(fields)
    except ValueError:
        return None


def _remember(state: ConversationState, ext: Extraction, w: Workload) -> ConversationState:
    """Keep what the question said, so /plan can size a rental for it next."""
    new = state.model_copy(deep=True)
    if not new.lang_locked:
        new.lang = ext.lang
    new.slots.update(ext.slots)
    new.slots["task"] = w.task
    new.turns += 1
    return new


def _title(lang: str, v: HardwareVerdict, dialog: Flow) -> str:
    """ "1 张 RTX 4090D 训 7B：全参微调 不能 · LoRA 能 · QLoRA 能" — the verdict, one line."""
    if v.on_time is not None:
        return _tokens_title(lang, v, dialog)
    items = " · ".join(
        locales.t(lang, "verdict.item", method=_method(lang, r.method), answer=_yes(lang, r.fits))
        for r in v.rows
    )
    key = "verdict.title_train" if v.task == "train" else "verdict.title_infer"
    return locales.t(lang, key, count=v.count, gpu=dialog.kb.gpus[v.gpu].name, model=v.model, items=items)


def _tokens_title(lang: str, v: HardwareVerdict, dialog: Flow) -> str:
    """ "不能：8 张 H100 一天约训 47亿 token（不是 10万亿）" — the tokens-a-day question."""
    best = v.fastest
    return locales.t(
        lang,
        "verdict.tokens_title",
        answer=_yes(lang, bool(v.on_time)),
        count=v.count,
        gpu=dialog.kb.gpus[v.gpu].name,
        hours=v.hours_available,
        done=v.tokens_in_time,
        asked=v.train_tokens,
        mfu=best.mfu if best else None,
        model=v.model,
    )


def _lines(lang: str, v: HardwareVerdict, dialog: Flow, assumed: bool) -> list[str]:
    gpu = dialog.kb.gpus[v.gpu].name
    lines = [_row_line(lang, r, gpu) for r in v.rows]
    best = v.fastest
    if best is None:
        lines.append(locales.t(lang, "verdict.none", count=v.count, gpu=gpu, model=v.model))
    elif best.tokens_per_day:
        lines.append(
            locales.t(lang, "verdict.fastest", method=_method(lang, best.method), per_day=best.tokens_per_day)
        )
    if assumed:
        lines.append(locales.t(lang, "verdict.assumed_model", model=v.model))
    lines.append(locales.t(lang, "verdict.offer"))
    return lines


def _row_line(lang: str, r: MethodVerdict, gpu: str) -> str:
    values = r.model_dump() | {"method": _method(lang, r.method), "gpu": gpu}
    if not r.fits:
        return locales.t(lang, "verdict.row_no", **values)
    return locales.t(lang, "verdict.row_train" if r.tokens_per_day else "verdict.row_infer", **values)


def _method(lang: str, method: str) -> str:
    key = f"label.{method}"
    return locales.t(lang, key) if locales.has(lang, key) else method.upper()


def _yes(lang: str, yes: bool) -> str:
    return locales.t(lang, "verdict.yes" if yes else "verdict.no")
