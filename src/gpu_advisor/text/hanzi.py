"""Chinese text as our readers expect it: Simplified characters, no control characters.

One table for every reader of user text (chat messages in ``reading.requirements``, pasted
sheets in ``engine.sheet``), so a Traditional word one of them understands the other
understands too (the concept questions' own table, 43 characters apart, was folded
in; issue 42). The table maps, character by character, the Traditional characters
that occur in the readers' keywords, number words and the phrases around them (萬 億 兩
張 訓練 記憶體 顯示卡 網路 …, and the words of paying and renting: 月繳 租賃 結算 競價
稅 …); a full OpenCC table is megabytes and buys nothing here.

Control characters (junk bytes, NUL) are what a copy from a terminal or a spreadsheet
leaves behind; they become spaces so they separate words instead of gluing them. Tab,
newline and carriage return are kept: they are the structure of a sheet. Lone
surrogates (half a UTF-16 pair) cannot be encoded; each reader decides what they become.
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy

TRADITIONAL = (
    "萬億兩張訓練預並發顯個時週參數調與塊單雙臺長駐續間鐘輸務隨認識點線買總錢費價於遲頭實際應對請問現麼麽"
    "這們沒嗎還開機體條樣據層種類產語為門貴幾當從裡裏優穩記憶儲讓況達過內約選場環構啟戶詢復複題碼處壓縮載"
    "級將盡標準邊輕態讀寫測試驗換進階專業網絡關團隊負責決聽說話誤錯則號統計劃稱慮擇夠確寬帶頻顆齊許員訊適"
    "電腦視圖學習連斷歷雲屬權熱輪陣較後倆歲衝貸餘佔幣圓紀錄設備運維護擴雜簡詞彙檔閱覽響獨銷額無謂規擁經繼"
    "給頂別論執資禮併貳陸區購賣頁滿騰風盤聯節傳殼組軟鏈緩裝項驅動廠質報來氣擬虛轉蓋製歸叢撲閃鍵極撐擔囉餾幹"
    "閒閑遷導該誰滯佈異虧賺營淨術議鐵幫損圍遠賬帳譯勢評強潤獲簽櫃棧離頸邏輯匯暫緒舊訂會著義薦歡貨險龍齡"
    "閉擊狀筆"
    "繳賃結釋搶競歐稅談須覺漲減彈銀贈鎖灣殺補貼儘賠償範檢託騙頓紹細詳證鑰憑攤廣潔積儀僅純輔緊"
)
SIMPLIFIED = (
    "万亿两张训练预并发显个时周参数调与块单双台长驻续间钟输务随认识点线买总钱费价于迟头实际应对请问现么么"
    "这们没吗还开机体条样据层种类产语为门贵几当从里里优稳记忆储让况达过内约选场环构启户询复复题码处压缩载"
    "级将尽标准边轻态读写测试验换进阶专业网络关团队负责决听说话误错则号统计划称虑择够确宽带频颗齐许员讯适"
    "电脑视图学习连断历云属权热轮阵较后俩岁冲贷余占币圆纪录设备运维护扩杂简词汇档阅览响独销额无谓规拥经继"
    "给顶别论执资礼并贰陆区购卖页满腾风盘联节传壳组软链缓装项驱动厂质报来气拟虚转盖制归丛扑闪键极撑担啰馏干"
    "闲闲迁导该谁滞布异亏赚营净术议铁帮损围远账帐译势评强润获签柜栈离颈逻辑汇暂绪旧订会着义荐欢货险龙龄"
    "闭击状笔"
    "缴赁结释抢竞欧税谈须觉涨减弹银赠锁湾杀补贴尽赔偿范检托骗顿绍细详证钥凭摊广洁积仪仅纯辅紧"
)
TO_SIMPLIFIED = str.maketrans(TRADITIONAL, SIMPLIFIED)

TRADITIONAL_WORDS = {
    "复制": "複製",
    "复杂": "複雜",
    "重复": "重複",
    "复合": "複合",
    "复数": "複數",
    "复印": "複印",
    "复习": "複習",
    "复选": "複選",
}
"""Words whose Traditional spelling a character table cannot give: 复 is 復 in 恢復 and
回復 but 複 in 複製 and 複雜 (the table reads 复 as 復, the commoner of the two)."""
_TRADITIONAL_WORD = lazy("|".join(TRADITIONAL_WORDS))


def traditional_words(text: str) -> str:
    """``text`` with the words of :data:`TRADITIONAL_WORDS` written in Traditional, for a
    character-by-character conversion to finish."""
    return _TRADITIONAL_WORD.sub(lambda m: TRADITIONAL_WORDS[m.group()], text)


"""``str.translate`` table: each Traditional character above to its Simplified form."""

CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
SURROGATE = lazy(r"[\ud800-\udfff]")


def simplified(text: str) -> str:
    """``text`` with the table's Traditional characters written in Simplified."""
    return text.translate(TO_SIMPLIFIED)


def without_control(text: str) -> str:
    """``text`` with control characters as spaces (tab, newline and CR kept)."""
    return CONTROL.sub(" ", text)
