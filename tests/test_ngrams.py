import numpy as np
import pytest

from autocat._ngrams import char_ngrams, normalize, pack_strings


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Police  Officer", " police officer "),
        ("\tTab\nnew line  ", " tab new line "),
        ("", "  "),
        ("   ", "  "),
        ("ÉCOLE", " école "),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_char_ngrams_of_short_string():
    assert char_ngrams("a", (2, 4)) == {" a", "a ", " a "}
    assert char_ngrams("", (2, 4)) == {"  "}


def test_pack_strings_round_trips_unicode():
    strings = ["Ab", "", "日本", "\U0001f692 x", "\ud800 lone surrogate"]
    codepoints, offsets = pack_strings(strings)
    assert codepoints.dtype == np.uint32
    assert offsets.tolist()[0] == 0 and len(offsets) == len(strings) + 1
    for i, string in enumerate(strings):
        chunk = codepoints[offsets[i] : offsets[i + 1]]
        assert "".join(map(chr, chunk)) == normalize(string)


def test_pack_strings_empty_list():
    codepoints, offsets = pack_strings([])
    assert codepoints.size == 0 and offsets.tolist() == [0]
