"""Rules that tell identifiers, near-unique text and free text among string columns.

Like :mod:`autocat._column_kinds`, which applies them, they work on the distinct
values of one column and a few counts.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "MIN_ID_ROWS",
    "TEXT_SAMPLE",
    "WORD_LETTERS",
    "identifier_reason",
    "is_free_text",
    "unique_text_reason",
]

# Identifier and index rules apply from this many rows on.
MIN_ID_ROWS = 50
# Strings with at least this share of distinct values among present ones are
# near-unique.
_NEAR_UNIQUE = 0.95
_WHITESPACE = re.compile(r"\s")
# A value is a word, not a code, when at least this share of its characters are
# letters (and they are not all capitals): a word may hold a digit or a sign
# ("antiquewhite1" 0.92, "abc.data" 0.88); codes are mostly digits and signs
# ("ID00023" 0.29, "AL-1" 0.5, a hexadecimal hash about 0.4).
WORD_LETTERS = 0.75


def _near_unique_present(
    uniques: np.ndarray, n_missing: int, n_rows: int
) -> int | None:
    """Return a near-unique column's present values (50+, 95% distinct), or None."""
    n_present = n_rows - n_missing
    if n_present < MIN_ID_ROWS or len(uniques) < _NEAR_UNIQUE * n_present:
        return None
    return n_present


def identifier_reason(uniques: np.ndarray, n_missing: int, n_rows: int) -> str | None:
    """Return why a column of text is an identifier, or None.

    A column is an identifier when it has at least 50 present values, at least
    95% of them distinct, and its values are codes: no value contains white
    space, and most are not words. A word has at least :data:`WORD_LETTERS` of
    its characters letters and is not all in capitals; codes are mostly digits
    and signs (``"A-10293"``, hashes) or capitals (tickers, airport codes).
    Near-unique values with spaces, or single words (colour or package names,
    web addresses), are near-unique text (:func:`unique_text_reason`), kept
    unless asked: their letters carry meaning a model can use.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._text_kinds import identifier_reason
    >>> ids = np.array([f"ID{i:05d}x" for i in range(60)], dtype=object)
    >>> identifier_reason(ids, 0, 60)
    'identifier-like: 60 distinct values in 60 rows, codes (no spaces, few letters)'
    >>> identifier_reason(np.array([f"a b {i}" for i in range(60)]), 0, 60) is None
    True
    >>> colours = np.array([f"darkblue{i}" for i in range(60)], dtype=object)
    >>> identifier_reason(colours, 0, 60) is None
    True
    """
    n_present = _near_unique_present(uniques, n_missing, n_rows)
    if n_present is None:
        return None
    for value in uniques:
        if not isinstance(value, str) or _WHITESPACE.search(value.strip()):
            return None
    if _words(uniques):
        return None
    return (
        f"identifier-like: {len(uniques)} distinct values in {n_present} rows, "
        "codes (no spaces, few letters)"
    )


def _words(uniques: np.ndarray) -> bool:
    """Whether most of (up to 1,000 evenly spread) values are words, not codes."""
    sample = uniques[
        np.linspace(0, len(uniques) - 1, min(len(uniques), 1000)).astype(int)
    ]
    return 2 * sum(map(_is_word, sample)) >= len(sample)


def _is_word(value: str) -> bool:
    """At least :data:`WORD_LETTERS` letters, and not all in capitals (``"JFK"``)."""
    letters = sum(c.isalpha() for c in value)
    return letters >= WORD_LETTERS * max(len(value), 1) and not value.isupper()


def unique_text_reason(uniques: np.ndarray, n_missing: int, n_rows: int) -> str | None:
    """Return why a column of text is near-unique text, or None.

    Near-unique text is what :func:`identifier_reason` keeps: at least 50 present
    values, at least 95% of them distinct, some with white space (company names,
    film titles) or most of them words (colour names, web addresses).
    ``TableVectorizer(drop_unique_text=True)`` drops it.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._text_kinds import unique_text_reason
    >>> titles = np.array([f"The film {i}" for i in range(60)], dtype=object)
    >>> unique_text_reason(titles, 0, 60)
    'near-unique text: 60 distinct values in 60 rows'
    >>> ids = np.array([f"ID{i:05d}" for i in range(60)], dtype=object)
    >>> unique_text_reason(ids, 0, 60) is None
    True
    """
    n_present = _near_unique_present(uniques, n_missing, n_rows)
    if n_present is None:
        return None
    if not all(isinstance(value, str) for value in uniques):
        return None
    spaced = any(_WHITESPACE.search(value.strip()) for value in uniques)
    if not spaced and not _words(uniques):
        return None
    return f"near-unique text: {len(uniques)} distinct values in {n_present} rows"


# Free text: a high-cardinality column whose values read as sentences or lists.
_WORD = re.compile(r"\w+")
_LIST_SEPARATOR = re.compile(r"[,;|]")
_LETTER = re.compile(r"[^\W\d_]")
#: Distinct values looked at by :func:`is_free_text` (the first ones).
TEXT_SAMPLE = 1_000


def is_free_text(values: np.ndarray, *, min_words: int = 6, min_items: int = 3) -> bool:
    """Return whether string values read as free text or lists, not categories.

    A column is free text when, over its distinct values (the first
    :data:`TEXT_SAMPLE`), the median number of words (runs of letters and
    digits) is at least ``min_words``, or the median number of list items is at
    least ``min_items``: a list is a value split by ``,``, ``;`` or ``|`` into
    items that each hold a letter. Short labels (``"Police Officer III"``),
    codes and coordinates (``"(38.98, -77.09)"``) are not free text;
    ``"english (fluently), spanish (poorly), c++"`` and sentences are.
    :class:`TableVectorizer` asks this of high-cardinality string columns only.

    Parameters
    ----------
    values : ndarray of shape (n,)
        The distinct non-missing values; values that are not strings do not count.
    min_words : int, default=6
        Median words per value from which a column is free text.
    min_items : int, default=3
        Median list items per value from which a column is free text.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._text_kinds import is_free_text
    >>> is_free_text(np.array(["Police Officer III", "Bus Operator"], dtype=object))
    False
    >>> is_free_text(np.array(["asian, white, other", "black, white, latin"],
    ...                       dtype=object))
    True
    >>> is_free_text(np.array(["Driving motor vehicle on highway without a license",
    ...                        "Failure to obey traffic control device instructions"],
    ...                       dtype=object))
    True
    """
    strings = [v for v in values[:TEXT_SAMPLE] if isinstance(v, str)]
    if not strings:
        return False
    words = np.median([len(_WORD.findall(s)) for s in strings])
    if words >= min_words:
        return True
    items = np.median([_list_items(s) for s in strings])
    return bool(items >= min_items)


def _list_items(value: str) -> int:
    parts = _LIST_SEPARATOR.split(value)
    if len(parts) < 2 or not all(_LETTER.search(part) for part in parts):
        return 1
    return len(parts)
