"""One canonical spelling of a message before any pattern looks at it.

Chinese IMEs type full-width forms (ＱＰＳ, １３Ｂ, ，), Taiwanese and Hong Kong users
type Traditional characters (萬, 億, 張, 訓練), counts come with a multiplication sign
(8×H100) and case is arbitrary. NFKC folds the width forms; a small hand table maps the
Traditional characters the lexicon actually uses (a full OpenCC table is megabytes and
buys nothing here); then everything is lower-cased so patterns can be written once.

Language is decided on the raw text, deterministically: any Han character (or CJK
punctuation / full-width form, which only a Chinese IME produces) means Chinese.
Statistical detectors misjudge short mixed text such as "需要 2x A100 for training".

Normalising is also what keeps every slot pattern linear in the message length. Slot
patterns put ``\\s*`` between a number, a unit and a keyword (``16 个 用户 的 并发``);
over a long run of whitespace several such quantifiers can split the run between them
in quartic many ways ("1" + 450 spaces + "x" took 44 s). So every run of whitespace
(any Unicode space, tab, U+3000, zero-width characters) becomes one character: a
newline if the run held a line break (a newline ends a clause for the readers), else
one space. A run of one repeated character is cut to :data:`MAX_REPEAT`, and lone
surrogates (half a UTF-16 pair, which cannot be encoded) become spaces, so nothing the
readers quote back can fail to print.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Lang = Literal["zh", "en"]

# Traditional -> Simplified, pairwise: character i of the first string becomes
# character i of the second. Only characters that occur in our keyword tables, number
# words or the phrases around them; everything else passes through unchanged.
_TRADITIONAL = (
    "萬億兩張訓練預並發顯個時週參數調與塊單雙臺長駐續間鐘輸務隨認識點線買總錢費價於遲頭實際應對請問現"
    "麼麽這們沒嗎還開機體條樣據層種類產語為門貴幾當從裡裏優穩記憶儲讓況達過內約選場環構啟戶詢復複題碼"
    "處壓縮載級將盡標準邊輕態讀寫測試驗換進階專業網絡關團隊負責決聽說話誤錯則號統計劃稱慮擇夠確寬帶頻"
    "顆齊許員訊適電腦視圖學習連斷歷雲屬權熱輪陣較後倆歲衝貸餘佔幣圓紀錄設備運維護擴雜簡詞彙檔閱覽響獨"
    "銷額無謂規擁經繼給頂別論執資禮併貳陸區購賣頁滿騰"
)
_SIMPLIFIED = (
    "万亿两张训练预并发显个时周参数调与块单双台长驻续间钟输务随认识点线买总钱费价于迟头实际应对请问现"
    "么么这们没吗还开机体条样据层种类产语为门贵几当从里里优稳记忆储让况达过内约选场环构启户询复复题码"
    "处压缩载级将尽标准边轻态读写测试验换进阶专业网络关团队负责决听说话误错则号统计划称虑择够确宽带频"
    "颗齐许员讯适电脑视图学习连断历云属权热轮阵较后俩岁冲贷余占币圆纪录设备运维护扩杂简词汇档阅览响独"
    "销额无谓规拥经继给顶别论执资礼并贰陆区购卖页满腾"
)

# Width-independent symbols NFKC leaves alone: multiplication signs become "x" (8×H100,
# 7×24), the various minus signs and dashes become "-".
_SYMBOLS = {"×": "x", "✕": "x", "✖": "x", "⨯": "x", "−": "-", "‐": "-", "‑": "-", "‒": "-", "–": "-"}
_TABLE = str.maketrans(_TRADITIONAL, _SIMPLIFIED) | str.maketrans(_SYMBOLS)

# Control characters (junk bytes, NUL), lone surrogates and the Unicode replacement
# character become spaces so they separate words instead of gluing them; zero-width
# characters vanish.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffd]")
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff]")
MAX_REPEAT = 32
"""Longest run of one repeated character kept; no quantity or keyword needs more."""

_WHITESPACE_RUN = re.compile(r"\s{2,}+")
_REPEAT_RUN = re.compile(rf"(.)\1{{{MAX_REPEAT},}}+", re.DOTALL)

_CHINESE = re.compile(
    r"[\u3000-\u303f\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)


def normalize(text: str) -> str:
    """Fold width, Traditional characters, symbols and case so patterns match one spelling."""
    text = _ZERO_WIDTH.sub("", _CONTROL.sub(" ", text))
    text = unicodedata.normalize("NFKC", text)
    text = _WHITESPACE_RUN.sub(_one_space, text.translate(_TABLE).lower())
    return _REPEAT_RUN.sub(_capped, text)


def _one_space(run: re.Match[str]) -> str:
    """A newline if the run ends a line (a clause break for the readers), else a space."""
    return "\n" if "\n" in run.group() else " "


def _capped(run: re.Match[str]) -> str:
    return run.group()[:MAX_REPEAT]


def language_of(text: str) -> Lang:
    """Chinese if the raw text holds any Han character or Chinese-IME punctuation, else English."""
    return "zh" if _CHINESE.search(text) else "en"
