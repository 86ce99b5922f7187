"""The free-text rule of _column_kinds: which high-cardinality columns are text."""

from __future__ import annotations

import numpy as np
import pytest

from autocat._text_kinds import TEXT_SAMPLE, is_free_text


def _values(*values):
    return np.array(values, dtype=object)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (_values("Police Officer III", "Bus Operator", "Fire/Rescue Captain"), False),
        (_values("journal of applied physics", "3d research", "acta biomaterialia"),
         False),
        (_values("02134", "10001", "94103"), False),
        (_values("(38.98447, -77.0941383)", "(39.0123, -77.1)"), False),  # 2 items
        (_values("Sambirano, Ambanja", "Agua Grande"), False),
        # lists: 3 items or more
        (_values("asian, white, other", "black, native american, white"), True),
        (_values("english (fluently), spanish (poorly), c++", "english; french; c"),
         True),
        (_values("a|b|c", "d|e|f"), True),
        # sentences: 6 words or more
        (_values("driving vehicle on highway without current registration",
                 "failure to obey traffic control device instructions"), True),
        (_values("one two three four five six", "a b c d e f"), True),
        (_values("one two three four five", "a b c d e"), False),
        (_values(), False),
        (_values(1.5, 2, None), False),  # non-strings do not count
    ],
)  # fmt: skip
def test_free_text_rule(values, expected):
    assert is_free_text(values) is expected


def test_the_median_decides_and_only_a_sample_is_read():
    short = ["title"] * 60
    long = ["a sentence of at least six words"] * 40
    assert not is_free_text(_values(*short, *long))
    assert is_free_text(_values(*long, *short[:39]))
    head = ["a sentence of at least six words"] * TEXT_SAMPLE
    assert is_free_text(_values(*head, *(["x"] * 5 * TEXT_SAMPLE)))


def test_thresholds_are_parameters():
    values = _values("one two three", "four five six")
    assert is_free_text(values, min_words=3)
    assert not is_free_text(_values("a, b", "c, d"))
    assert is_free_text(_values("a, b", "c, d"), min_items=2)
