"""Models and GPUs: names from the vocabulary, GPU counts around them, and ownership.

Names are read first and claimed, because names contain numbers that mean nothing on
their own: "Mixtral 8x7B" is a model, not 8 GPUs and not a 7B size; "A100 80G" is a
card, not 80 of anything. A count is the number written right next to a GPU name
(8x H100, 8 卡 A100, 两张3090, one A100, 单卡T4, A100 x 8); "我有一张T4" / "I have a
4090" also marks the GPU as owned, which the dialog treats differently from a question.
"""

from __future__ import annotations

from gpu_advisor.reading import gpu_count
from gpu_advisor.reading.requirements.lexicon import CLAUSE_BREAK, NEGATION, OWNED_CUE
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.reading.requirements.vocabulary import Hit, Vocabulary
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import COUNT_WORDS, NUMBER, parse_number

_COUNT_WORD = "|".join(sorted((w for w in COUNT_WORDS if w != "半"), key=lambda w: (-len(w), w)))
# "a GPU" is not a count ("I don't have a GPU"); "a 4090" is.
_BARE_COUNT_WORD = "|".join(sorted((w for w in COUNT_WORDS if len(w) > 2), key=lambda w: (-len(w), w)))
_COUNT_ALONE = lazy(
    rf"(?:(?P<num>{NUMBER})\s*+(?:张|块|个|台|片)?|(?P<word>单|双)(?:张|块)?)\s*+(?:显示卡|显卡|卡(?!顿))"
    rf"|(?<![a-z\d.])(?:(?P<num2>\d+)|(?P<word2>{_BARE_COUNT_WORD}))"
    r"\s*+-?\s*+(?:gpus?|cards?|graphics cards?)(?![a-z])"  # "4 GPUs", "an 8-GPU box"
)
_FORM = lazy(r"\s*+(?:的)?\s*+(?P<form>pcie|sxm\d?)(?:\s*+(?:版本?|版的|卡))?(?![a-z])")
_MEMORY_CLASS = lazy(
    rf"(?:(?P<num>{NUMBER})\s*+(?:张|块|个|片)\s*+)?(?:显存\s*+)?(?P<gb>\d{{1,3}})\s*+g(?:b|ib)?\s*+(?:显存)?\s*+(?:的)?\s*+"
    r"(?:显卡|卡|gpus?|cards?|graphics cards?)(?![a-z])"
    rf"|(?<![\d.a-z])(?P<gb3>\d{{1,3}})\s*+g(?:b|ib)?\s*+显存(?!\s*+(?:占用|用了|要|需要))"
    rf"|(?<![a-z])(?:an?|one|(?P<en>{NUMBER}|two|three|four|six|eight))\s++(?P<gb2>\d{{1,3}})\s*+gb?\s++(?:gpus?|cards?)(?![a-z])"
)
_NEEDS = lazy(r"要|需|占|用了|needs?|takes?|uses?")
_MIG = lazy(r"(?<![\d.])(?P<profile>[1-7]g\.\d{1,3}gb)(?![a-z\d])")
_HALF = lazy(r"半张|半块|半卡|(?<![a-z])half\s+(?:an?\s+)?(?=[a-z0-9])")
_WINDOW = 24
_SMI_HEADER = lazy(r"nvidia-smi\s+[\d.]+|driver\s+version:\s*+[\d.]+")
_SMI_ROW = lazy(r"\|\s*+(?P<index>\d{1,2})\s++(?P<name>nvidia\s[^|]*?)\s++(?:on|off)\s*+\|")
_CUE_REACH = 12  # "I have a question about the H100" is not owning one


# Words that make several models a comparison rather than two values for one slot.
_COMPARED = lazy(
    r"哪个|哪一个|还是|对比|比较|相比|区别|差多少|(?<![a-z])(?:vs\.?|versus|which|compare|compared|or)(?![a-z])"
)


def read_models(scan: Scan, vocab: Vocabulary) -> None:
    """Known model names become ``model``; near-misses of a known family become issues."""
    compared = _COMPARED.search(scan.text) is not None
    for hit in vocab.models.find(scan.text):
        if scan.is_free(hit.start, hit.end):
            if hit.id not in scan.models:
                scan.models.append(hit.id)
            if compared:  # "A 和 B 哪个便宜": both are kept, the first is the one a plan is about
                scan.slots.setdefault("model", hit.id)
            else:
                scan.put("model", hit.id)
            scan.claim(hit.start, hit.end)
    match = next(scan.matches(vocab.near_miss), None)  # the first unknown name is said
    if match is not None:
        name = match.group().rstrip("._-")
        scan.report("unknown_model", "model", name=name, closest=vocab.closest_model(name))


_APPLE = lazy(
    r"(?<![a-z])(?:mac\s?studio|mac\s?mini|mac\s?pro|macbook(?:\s?(?:pro|air))?|apple\s+silicon"
    r"|m[1-4]\s?(?:max|ultra|pro))(?![a-z])"
)


def read_gpus(scan: Scan, vocab: Vocabulary) -> None:
    """GPU names with their counts; an owned GPU is preferred when several are named.

    A name written like a card that no card has ("H300", "RTX 5080") is said aloud as an
    ``unknown_gpu`` issue with the closest known card, never dropped silently.
    """
    listed = _read_smi_table(scan)
    hits = [hit for hit in vocab.gpus.find(scan.text) if scan.is_free(hit.start, hit.end)]
    readings = [_read_gpu(scan, hit, vocab) for hit in hits]
    if listed is not None:
        readings = [(gpu_id, float(listed), owned, span) for gpu_id, _, owned, span in readings[:1]]
    scan.gpu_mentions.extend((gpu_id, count) for gpu_id, count, _, _ in readings)
    for gpu_id, count, owned, span in sorted(readings, key=lambda reading: not reading[2]):
        if gpu_id not in scan.gpus:
            scan.gpus.append(gpu_id)
        scan.slots.setdefault("gpu", gpu_id)  # several cards are a comparison, not a conflict
        if count is not None and scan.slots["gpu"] == gpu_id:
            scan.put_number("gpu_count", count, span)
        scan.gpu_owned = scan.gpu_owned or (owned and scan.slots["gpu"] == gpu_id)
        scan.claim(*span)
    for match in scan.matches(_APPLE):  # no CUDA, unified memory, nothing in the catalog: said, not guessed
        if not scan.has_issue("apple_silicon"):
            scan.report("apple_silicon", "gpu", name=match.group().strip())
        scan.claim(*match.span(), understood=False)
    for match in scan.matches(vocab.gpu_near_miss):
        if not scan.has_issue("unknown_gpu"):  # the first unknown card is said, once
            scan.report("unknown_gpu", "gpu", name=match.group(), closest=vocab.closest_gpu(match.group()))
        scan.claim(*match.span(), understood=False)
    _read_bare_counts(scan)
    _count_the_one_card(scan)


def _count_the_one_card(scan: Scan) -> None:
    """One card named and its count said apart from it ("8卡服务器 A100", "8-GPU box of H100"):
    the count is that card's, so the price reader, which reads each mention, prices eight."""
    count = scan.slots.get("gpu_count")
    if len(scan.gpu_mentions) == 1 and scan.gpu_mentions[0][1] is None and isinstance(count, (int, float)):
        scan.gpu_mentions[0] = (scan.gpu_mentions[0][0], float(count))


def _read_smi_table(scan: Scan) -> int | None:
    """A pasted ``nvidia-smi`` table: the number of GPU rows, its first card's name left to read.

    Each GPU row starts "| <index>  NVIDIA <name> … On/Off |". A four-card table is four
    cards, not one (issue 47); its indices, versions, bus ids, watts and MiB are the
    table's, never a count, a budget or a length, so the whole table is claimed but the
    first card's name.
    """
    rows = list(scan.matches(_SMI_ROW))
    if not rows or _SMI_HEADER.search(scan.text) is None:
        return None
    indices = {row.group("index") for row in rows}
    start = min(m.start() for m in (_SMI_HEADER.search(scan.text), rows[0]) if m is not None)
    end = _table_end(scan.text, rows[-1].end())
    keep = rows[0].span("name")
    scan.claim(start, keep[0])
    scan.claim(keep[1], end)
    return len(indices)


def _table_end(text: str, at: int) -> int:
    """The end of the table's last line from ``at``: lines that start with "|" or "+" belong to it."""
    end = text.find("\n", at)
    while end != -1 and text[end + 1 : end + 2] in ("|", "+"):
        end = text.find("\n", end + 1)
    return len(text) if end == -1 else end


def _read_gpu(scan: Scan, hit: Hit, vocab: Vocabulary) -> tuple[str, float | None, bool, tuple[int, int]]:
    """One GPU mention: (id, count or None, owned, span covering name and count).

    A form word after the name picks the sibling of that form ("A100 PCIe 版" is the
    PCIe card, with its own bandwidth and interconnect).
    """
    start, end, count = hit.start, hit.end, None
    gpu_id = hit.id
    form = _FORM.match(scan.text, end)
    if form is not None:
        word = "sxm" if form.group("form").startswith("sxm") else "pcie"
        gpu_id = vocab.variants.get((hit.id, word), hit.id)
        end = form.end()
    found = gpu_count.beside(scan.text, start, end)  # the one grammar (reading.gpu_count)
    if found is not None:
        count, start, end = found.cards, found.start, found.end
    elif gpu_count.WHOLE.match(scan.text, end + _gap(scan.text, end)):
        count = gpu_count.WHOLE_BOX  # "H100 整机": a whole box
    return gpu_id, count, _is_owned(scan.text, start), (start, end)


def _gap(text: str, end: int) -> int:
    return len(text[end:]) - len(text[end:].lstrip())


def _is_owned(text: str, start: int) -> bool:
    """An ownership cue ("我有", "I have", "my") in the same clause, a few characters back."""
    window = text[max(0, start - _WINDOW) : start]
    window = CLAUSE_BREAK.split(window)[-1]
    cues = list(OWNED_CUE.finditer(window))
    if not cues or len(window) - cues[-1].end() > _CUE_REACH:
        return False
    cue = cues[-1]
    return NEGATION.search(window[max(0, cue.start() - 6) : cue.start()]) is None


def read_card_classes(scan: Scan) -> None:
    """A card named by its memory ("两张 24G 的卡", "an 80GB GPU") or a slice ("3g.40gb", "半张 A100")."""
    for match in scan.matches(_MIG):
        scan.mig_profile = scan.mig_profile or match.group("profile")
        scan.claim(*match.span())
    if scan.mig_profile is None and next(scan.matches(_HALF), None) is not None:
        scan.mig_profile = "half"
    for match in scan.matches(_MEMORY_CLASS):
        gb = parse_number(match.group("gb") or match.group("gb2") or match.group("gb3"))
        if (
            gb is None
            or "gpu" in scan.slots
            or _NEEDS.search(scan.source, max(0, match.start() - 4), match.start())
        ):
            continue  # "模型要 24G 显存" is what the model needs, not a card
        scan.memory_class_gb = scan.memory_class_gb or gb
        number = match.group("num") or match.group("en")
        count = (COUNT_WORDS.get(number) or parse_number(number)) if number else None
        if count is not None:
            scan.put_number("gpu_count", count, match.span())
        scan.claim(*match.span())


def _read_bare_counts(scan: Scan) -> None:
    """Counts without a GPU name: "8卡", "两张显卡", "4 GPUs", "单卡"."""
    for match in scan.matches(_COUNT_ALONE):
        word = match.group("word") or match.group("word2")
        number = match.group("num") or match.group("num2")
        count = COUNT_WORDS[word] if word else parse_number(number or "")
        scan.put_number("gpu_count", count, match.span())
        scan.gpu_owned = scan.gpu_owned or _is_owned(scan.text, match.start())
