"""A pasted multi-card ``nvidia-smi`` is judged as the cards it lists (issue 47).

Four GPU rows ("|   0  NVIDIA A100-SXM4-80GB  On |" … "|   3 …") are four cards; the
table's indices, driver and CUDA versions, bus ids, watts and MiB are nobody's count,
budget or length, so none of them is read as one or said back as unused.
"""

from __future__ import annotations

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.requirements import extract
from tests.dialogs import talk

HEADER = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""
ROW = """\
|   {i}  NVIDIA A100-SXM4-80GB          On  |   00000000:{bus}:00.0 Off |                    0 |
| N/A   32C    P0             62W /  400W |       4MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""


def smi(cards: int) -> str:
    """An ``nvidia-smi`` table (driver 550) listing ``cards`` A100 80GB SXM4."""
    return HEADER + "".join(ROW.format(i=i, bus=f"{7 + 3 * i:02X}") for i in range(cards))


def test_a_four_card_table_is_four_cards(dialog: Dialog) -> None:
    slots = extract(smi(4), dialog.vocab).slots
    assert (slots["gpu"], slots["gpu_count"]) == ("a100-80g-sxm", 4)


def test_a_one_card_table_is_one_card(dialog: Dialog) -> None:
    assert extract(smi(1), dialog.vocab).slots["gpu_count"] == 1


def test_no_number_of_the_table_is_said_back_as_unused(dialog: Dialog) -> None:
    issues = extract(smi(4), dialog.vocab).issues
    assert [
        i.id for i in issues if i.id in ("number_unused", "conflicting_values", "number_not_positive")
    ] == []


def test_a_question_after_the_table_is_judged_on_all_its_cards(dialog: Dialog) -> None:
    reply, _ = talk(dialog, smi(4) + "能跑 Llama 3 70B 吗")
    assert reply.text.startswith("4 张 A100 80GB SXM4 跑 Llama 3 70B")
