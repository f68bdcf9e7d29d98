"""What understanding a message produces: slots, flags and issues, never prose.

Like the engine's findings, an :class:`Issue` is an id plus values; ``locales`` turns it
into a sentence in the user's language. Issue ids emitted by this package:

- ``params_out_of_range`` (field ``params_b``; values ``value``, ``max``)
- ``number_too_large`` (any numeric field; values ``value``, ``max``)
- ``negative_number`` (any numeric field; value ``value``)
- ``number_not_positive`` (a zero where only a positive number makes sense; ``value``)
- ``currency_assumed`` (field ``budget``; value ``currency``): no ¥/元/$/USD word given
- ``period_assumed`` (field ``budget``; value ``per``): no 每月/per hour/总 word given
- ``budget_period_converted`` (field ``budget``; values ``from``, ``amount``): a per-day,
  per-week or per-year budget restated per month
- ``unknown_model`` (field ``model``; values ``name``, ``closest``): looks like a model
  name of a known family, or a mixture-of-experts shape such as 16x3b, but is not in the
  vocabulary; ``closest`` is the known model id most like it
- ``unknown_gpu`` (field ``gpu``; values ``name``, ``closest``): written like a card
  (H300, RTX 5080, 昇腾910C) but not one we know; ``closest`` is the nearest card id
- ``model_from_shape`` (field ``model``; values ``name``, ``model``): a shape such as
  235b-a22b or 8x7b read as the library model it names
- ``model_config_read`` / ``model_config_unreadable`` (field ``hf_config``; ``limit``):
  a pasted config.json was taken as the model, or could not be
- ``conflicting_values`` (any field; values ``kept``, ``ignored``): the message gives two
  different values; the first one is kept
- ``approximated`` (any numeric field; values ``said``, ``value``): a vague or ranged
  amount ("三四十个人", "a couple hundred", "两三天") read as one number; ranges take
  their upper end (capacity and price must cover the busy case), vague words a typical
  value (``reading.requirements.vague``)
- ``concurrency_from_daily_users`` (field ``concurrency``; values ``daily``, ``value``,
  ``peak_share``, ``session_minutes``): daily actives turned into simultaneous users by
  the peak-hour rule in ``reading.requirements.vague``
- ``qps_from_daily_requests`` (field ``qps``; values ``daily``, ``value``, ``peak_share``):
  requests per day turned into the busiest hour's requests per second
- ``train_tokens_from_samples`` (field ``train_tokens``; values ``samples``, ``per_sample``,
  ``value``, ``epochs``): a dataset counted in examples ("5 万条数据", "20k samples") at a typical
  example length (``reading.requirements.size.TOKENS_PER_SAMPLE``), times the passes stated
- ``train_tokens_epochs`` (field ``train_tokens``; values ``data``, ``epochs``, ``value``): a
  token count of data trained for several passes ("1亿 token，训 3 轮")
- ``budget_per_gpu`` (field ``budget``; value ``amount``): a per-card price ("每卡每小时
  12 块"); see :attr:`Extraction.budget_per_gpu`

Beyond slots, one message may carry (see :class:`Extraction`): relative :class:`Edit`
records for the dialog to apply to the slots it already holds, ``replace`` markers for slots the message
corrects instead of adds to, and :class:`Constraints` on which cards may be proposed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from gpu_advisor.text.normalize import Lang


class Issue(BaseModel):
    """A problem in the message, rendered later by locales from ``id`` and ``values``."""

    id: str
    field: str | None = None
    values: dict[str, str | float | int] = Field(default_factory=dict)


EditOp = Literal["scale", "set"]


class Edit(BaseModel):
    """A change relative to what the conversation already holds; the dialog applies it.

    - ``Edit(slot="budget", op="scale", factor=0.5)``: "预算再少一半", "half the budget";
      for ``budget`` the factor scales ``amount`` and keeps currency and period.
    - ``Edit(slot="concurrency", op="scale", factor=2)``: "并发翻个倍", "double the users".
    - ``Edit(slot=None, op="set", value=2000)``: "make it 2000 instead", "改成2000": the
      slot is the one last mentioned or asked about, which only the dialog knows.
    - ``Edit(slot=None, op="scale", factor=0.5)``: "再少一半", "halve it", likewise.
    - ``Edit(slot=None, op="set", value=16, was=8)``: "不是8个，是16个": the slot is the one
      that holds 8.

    ``slot`` is a Workload field name when the message names one. A scaled integer slot
    (concurrency) is rounded by whoever applies the edit, never below 1.
    """

    slot: str | None = None
    op: EditOp
    factor: float | None = None
    value: float | None = None
    was: float | None = None  # "不是8个，是16个": the value replaced, which finds the slot holding it


class Constraints(BaseModel):
    """Which cards the user rules out or in; echoed back and applied to the search.

    ``exclude_gpus`` holds GPU ids ("不要 3090" → ``["rtx3090"]``); ``exclude_segments``
    whole market segments (``"consumer"`` for "no consumer cards", "不要游戏卡");
    ``only_vendor`` one vendor id ("只用英伟达" → ``"nvidia"``, "只要昇腾" → ``"huawei"``);
    ``domestic_only`` Chinese vendors only ("只用国产卡": huawei, hygon, cambricon, …).
    """

    exclude_gpus: list[str] = Field(default_factory=list)
    exclude_segments: list[str] = Field(default_factory=list)
    only_vendor: str | None = None
    domestic_only: bool = False

    def any(self) -> bool:
        return bool(self.exclude_gpus or self.exclude_segments or self.only_vendor or self.domestic_only)


class Extraction(BaseModel):
    """Everything one message said, as Workload field names plus dialog flags.

    ``replace`` lists slots the message corrects rather than adds to ("不对，是推理不是
    训练" gives ``task="infer"`` and ``replace=["task"]``: drop the old task, do not merge
    it into "both"). ``implied`` lists slots guessed from context rather than said ("20
    QPS" or "a 小程序" imply ``task="infer"``): the dialog uses them to fill an empty slot
    and never to overwrite one (a "both" conversation stays "both"). ``budget_per_gpu``
    says the budget amount is per card (multiply by the card count before comparing with
    a machine's price).
    """

    lang: Lang
    normalized: str = ""  # the message as every reader saw it (``text.normalize``), once
    slots: dict[str, Any] = Field(default_factory=dict)
    gpu_owned: bool = False
    skip: bool = False
    issues: list[Issue] = Field(default_factory=list)
    matched: list[str] = Field(default_factory=list)  # in normalized spelling: "8xh100", "预算一万"
    edits: list[Edit] = Field(default_factory=list)
    replace: list[str] = Field(default_factory=list)
    constraints: Constraints = Field(default_factory=Constraints)
    budget_per_gpu: bool = False
    implied: list[str] = Field(default_factory=list)
    gpus: list[str] = Field(default_factory=list)
    """Every card the message names, in order ("L40S 和 A6000 哪个好" names two): a
    comparison, not a conflict. ``slots["gpu"]`` holds the one a plan is about (an owned
    card first)."""
    models: list[str] = Field(default_factory=list)
    """Every known model the message names, in order ("Qwen2.5 7B 和 Llama 3.1 8B 哪个便宜"
    names two): with a comparison word a comparison, else a conflict said back."""
    gpu_mentions: list[tuple[str, float | None]] = Field(default_factory=list)
    """Each card mention with the count written next to it ("训练租两张 A100、推理放一张 3090"
    gives ``[("a100…", 2), ("rtx3090", 1)]``), in message order."""
    memory_class_gb: float | None = None
    """A card named by its memory only ("16G 显存的卡", "两张 24G 的卡", "an 80GB GPU"), in GB."""
    job_slots: dict[str, Any] = Field(default_factory=dict)
    """A non-LLM job's own numbers, by role (``images_per_day``, ``resolution``, ``steps``,
    ``frames``, ``clip_seconds``, ``audio_hours``, ``documents``, ``streams``,
    ``dataset_images``, ``epochs``, ``its``, ``codec``, ``price_per``): read by
    ``requirements.job_units`` so none of them becomes a language-model slot."""
    mig_profile: str | None = None
    """A MIG slice ("3g.40gb", "1g.10gb"), or ``"half"`` for "半张 A100": a card of that size."""
