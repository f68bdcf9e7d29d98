"""Two or three models named in one question are a comparison: "Qwen2.5 7B 和 Llama 3.1 8B 哪个部署便宜".

Each model is planned for the same job (the conversation's slots plus what the question
carried, a serving job unless training was said), and the reply puts their picks side by
side: the machine, its price, the speed per stream, and which costs less. The slots are
kept with the first model, so "7×24，并发 10" next sizes a plan for it.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.words import price_words
from gpu_advisor.engine.results import Option
from gpu_advisor.reading.message import Message

MAX_MODELS = 3


def model_comparison_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The side-by-side plans for a question naming two or more models, or None."""
    models = msg.ext.models[:MAX_MODELS]
    if len(models) < 2 or "model" not in msg.ext.slots:
        return None
    new = remember(state, msg)
    new.slots.setdefault("task", "infer")
    lines, picks = [], []
    for model in models:
        trial = new.model_copy(deep=True)
        trial.slots["model"] = model
        plan, _ = flow.plan_for(trial)
        pick = plan.recommendation if plan is not None else None
        name = flow.kb.models[model].name
        picks.append((name, pick))
        lines.append(_row(new.lang, name, pick))
    cheaper = _cheaper(new.lang, picks, flow.kb.catalog.fx_to_cny)
    title = locales.t(new.lang, "model_compare.title", names=[name for name, _ in picks])
    content = Content(title=title, summary=[*lines, *cheaper, locales.t(new.lang, "faq.offer")])
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "card", content, [button]), new


def _row(lang: str, name: str, pick: Option | None) -> str:
    if pick is None:
        return locales.t(lang, "model_compare.no_fit", model=name)
    return locales.t(
        lang,
        "model_compare.row",
        model=name,
        count=pick.count * pick.machines,
        gpu=pick.gpu_name,
        price=price_words(lang, pick.cost),
        tokens_per_s=pick.decode_tokens_per_s or 0.0,
    )


def _cheaper(lang: str, picks: list[tuple[str, Option | None]], fx: dict[str, float]) -> list[str]:
    """Which model's pick costs less, and by how much (in the cheaper pick's currency)."""
    priced = sorted(
        ((p.cost.amount * fx.get(p.cost.currency, 1.0), name, p) for name, p in picks if p is not None),
        key=lambda item: item[0],
    )
    if len(priced) < 2:
        return []
    (low, name, pick), (high, _, _) = priced[0], priced[1]
    if high - low < 1.0:  # the same machine: say which one answers faster there
        (_, faster, fast), (_, _, slow) = sorted(
            priced[:2], key=lambda item: -(item[2].decode_tokens_per_s or 0.0)
        )
        said = {"fast": fast.decode_tokens_per_s or 0.0, "slow": slow.decode_tokens_per_s or 0.0}
        return [locales.t(lang, "model_compare.same", model=faster, **said)]
    saving = (high - low) / fx.get(pick.cost.currency, 1.0)
    return [
        locales.t(
            lang,
            "model_compare.cheaper",
            model=name,
            saving=price_words(lang, pick.cost.model_copy(update={"amount": saving})),
        )
    ]
