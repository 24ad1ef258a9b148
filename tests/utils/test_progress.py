"""nnbook.utils.progress: a text bar that redraws only when it moves, and shows no clock."""
import io

import nnbook as nb
from nnbook.utils.data import DataLoader


def run(iterable, **kwargs):
    out = io.StringIO()
    items = list(nb.utils.progress(iterable, file=out, **kwargs))
    return items, out.getvalue()


def test_the_bar_passes_items_through_and_ends_full():
    items, text = run(DataLoader(range(23), batch_size=5), desc="epoch 1")
    assert [b.tolist() for b in items][-1] == [20, 21, 22]
    assert text.endswith("\repoch 1  100% [####################] 5/5\n")
    assert text.startswith("\repoch 1    0% [--------------------] 0/5")


def test_a_long_loop_redraws_about_a_hundred_times_and_the_same_text_each_run():
    _, text = run(range(10_007))
    assert 100 <= text.count("\r") <= 102
    assert run(range(10_007))[1] == text
    assert " 50% [##########----------]  5004/10007" in text


def test_a_generator_without_length_shows_a_count():
    items, text = run((i for i in range(250)), desc="seen")
    assert items == list(range(250))
    assert text.endswith("\rseen  250\n") and "\rseen  120" in text
    assert text.count("\r") <= 120  # every count below 100, then every tenth
