"""Whitespace-separated decimal numbers decoded from text in bulk, without a Python loop per number.

Numbers written as ``[sign]digits[.digits]`` with at most 8 digits before the
point and 16 after it, 15 in all (the form of nearly every motion file), are decoded together by
SWAR arithmetic on 8-byte words: each token's integer and fraction digits are
loaded as two little-endian 64-bit words and turned into integers with three
multiply-shift steps (Lemire, 2018, "Fast number parsing", the 8-digit method
also used by simdjson, Langdale & Lemire, 2019). The value is then
``(all digits as one integer) / 10^(decimals)``, one correctly rounded IEEE
division of two exactly represented numbers (Clinger, 1990, fast path), so it
equals Python's ``float(token)`` bit for bit. Other tokens (exponents, longer
digit strings, ``nan``) go through ``float``; text that is not a number is
reported with its line.

The digits are checked once for the whole text: when its bytes besides
separators, points and one leading sign per token are all ASCII digits (a
count of byte classes), no word needs a check of its own; otherwise each word
is checked. When every token has one point the same count of digits from its
end (numbers written with fixed decimals), the points are found from the
first token's count instead of by a search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided
from numpy.typing import NDArray

__all__ = ["DecodedLines", "decode_lines"]

_ASCII_ZEROS = np.uint64(0x3030303030303030)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIXES = np.uint64(0x0606060606060606)
# _LOW_BYTES[k]: a mask of the k lowest bytes of a 64-bit word (k = 0 … 8).
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
_FAST_DIGITS = 8
_EXACT = np.uint64(2**53)  # integers below this convert to float64 exactly
_POW10 = 10 ** np.arange(17, dtype=np.uint64)
_POW10_FLOAT = 10.0 ** np.arange(17)
# Masks by digit count n: keep the n high (integer part) or low (fraction) bytes of a word,
# and ASCII "0" in the others.
_KEEP_HIGH = ~_LOW_BYTES[::-1]
_ZEROS_LOW = _ASCII_ZEROS & _LOW_BYTES[::-1]
_ZEROS_HIGH = _ASCII_ZEROS & ~_LOW_BYTES
_PAD = 8
# Lemire's steps: lanes of 1, 2 and 4 digits (the first: ASCII digits, or zero bytes, masked to
# their values) joined in pairs by one multiply (the high lane times 10^w plus the low one) and
# a shift.
_DIGIT_STEPS = tuple(
    (np.uint64(mask), np.uint64(10**w << 8 * w | 1), np.uint64(8 * w))
    for w, mask in ((1, 0x0F0F0F0F0F0F0F0F), (2, 0x00FF00FF00FF00FF), (4, 0x0000FFFF0000FFFF))
)
_BYTE_DIGITS = np.uint8(48), np.uint8(9)  # b - 48 (wrapping) <= 9: an ASCII digit
_MANY_SLOW = 1024
_TOKEN = re.compile(rb"[^\x00-\x20]+")


@dataclass(frozen=True)
class DecodedLines:
    """Numbers of a block of text lines.

    Attributes
    ----------
    values : ndarray, shape (N,)
        Every number, in text order.
    counts : ndarray of int, shape (L,)
        How many numbers each line holds (``L`` = number of newlines + 1).
    bad_line, bad_token
        Line index (0-based, in the block) and text of the first token that is
        not a number; ``-1`` and ``""`` if all are numbers (then ``values`` is
        complete).
    nonfinite_line : int
        Line index of the first NaN or infinite value, or -1.
    """

    values: NDArray[np.float64]
    counts: NDArray[np.intp]
    bad_line: int = -1
    bad_token: str = ""
    nonfinite_line: int = -1


def _digits_ok(word: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """Whether all 8 bytes of each word are ASCII digits."""
    return ((word & _HIGH_NIBBLES) == _ASCII_ZEROS) & (
        ((word + _SIXES) & _HIGH_NIBBLES) == _ASCII_ZEROS
    )


def _eight_digits(word: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The integer written by 8 ASCII digits, first digit in the lowest byte (Lemire, 2018).

    Zero bytes count as "0". Computed in place: ``word`` is overwritten by the result.
    """
    for mask, factor, shift in _DIGIT_STEPS:
        word &= mask
        word *= factor
        word >>= shift
    return word


def _token_points(
    padded: bytes,
    b: NDArray[np.uint8],
    starts: NDArray[np.intp],
    ends: NDArray[np.intp],
    digits_from: NDArray[np.intp],
) -> tuple[NDArray[np.intp], int | NDArray[np.intp], int, NDArray[np.bool_] | None]:
    """Each token's decimal point (its end if none), the digits after it, and the points.

    Returns the point positions, the digit counts after them (one int when all
    tokens have the same), the number of points in the text, and which tokens
    hold one point at most (``None``: each holds one, after its sign). Numbers
    written with a fixed count of decimals, as exporters write them, are
    recognised from the first token without finding every point.
    """
    n_dots = int(np.count_nonzero(b == 46))
    if n_dots == len(starts) > 0:
        dot = padded.find(b".", starts[0], ends[0])
        if dot >= 0:
            decimals = int(ends[0]) - dot - 1
            point = ends - (decimals + 1)
            if (point >= digits_from).all() and (b[point] == 46).all():
                return point, decimals, n_dots, None
    dots = np.flatnonzero(b == 46)
    if n_dots == len(starts) and (dots >= digits_from).all() and (dots < ends).all():
        n_frac = ends - dots
        n_frac -= 1
        return dots, n_frac, n_dots, None
    point = ends.copy()
    owner = np.searchsorted(starts, dots, side="right") - 1
    point[owner] = dots
    n_frac = ends - point
    n_frac -= 1
    np.maximum(n_frac, 0, out=n_frac)
    return point, n_frac, n_dots, np.bincount(owner, minlength=len(starts)) <= 1


def decode_lines(text: bytes) -> DecodedLines:
    """All whitespace-separated numbers of ``text`` and how many each line holds.

    Parameters
    ----------
    text : bytes
        ASCII text; bytes <= 32 separate numbers, ``b"\\n"`` ends a line.

    Returns
    -------
    DecodedLines
        Values equal ``float(token)`` for every token (bit for bit).
    """
    width = -(-(len(text) + 4 * _PAD) // 8) * 8  # a whole number of words
    padded = b" " * _PAD + text + b" " * (width - len(text) - _PAD)
    b = np.frombuffer(padded, dtype=np.uint8)
    # Bytes that are no ASCII digit; in plain text: separators, points and leading signs.
    n_not_digits = np.count_nonzero(np.subtract(b, _BYTE_DIGITS[0]) > _BYTE_DIGITS[1])
    gaps = np.flatnonzero(b <= 32)  # separators; a token lies between two that are not adjacent
    token = np.flatnonzero(gaps[1:] - gaps[:-1] > 1)
    # Arrays are updated in place and dropped once used: they set a chunk's peak memory.
    starts = gaps[token]
    starts += 1
    token += 1
    ends = gaps[token]
    del token
    line_ends = gaps[b[gaps] == 10]
    n_gaps = len(gaps)
    del gaps
    edges = np.zeros(len(line_ends) + 2, dtype=np.intp)  # tokens before each line
    edges[1:-1] = np.searchsorted(starts, line_ends)
    edges[-1] = len(starts)
    counts = edges[1:] - edges[:-1]
    del edges

    first = b[starts]
    negative = first == 45
    skipped = first < 46  # a leading "+" (43) or "-" (45) is skipped, other bytes fail below
    digits_from = starts + skipped
    point, n_frac, n_dots, fast = _token_points(padded, b, starts, ends, digits_from)
    del ends  # the few tokens read by Python find their end again
    # Plain text: besides separators, one sign at most in front and points, only ASCII digits.
    # Then the tokens' digit bytes need no check of their own.
    n_skipped = np.count_nonzero(skipped)
    plain = (
        n_skipped == np.count_nonzero(negative) + np.count_nonzero(first == 43)
        and n_not_digits == n_gaps + n_dots + n_skipped
    )
    n_int = np.subtract(point, digits_from, out=digits_from)
    # As unsigned, a negative count (a point before the sign) is out of range too.
    in_range = n_int.view(np.uint64) <= _FAST_DIGITS
    fast = in_range if fast is None else fast & in_range
    del in_range
    if isinstance(n_frac, np.ndarray) or n_frac == 0:
        fast &= n_int + n_frac >= 1
    fast &= n_frac <= 2 * _FAST_DIGITS
    if not plain:
        fast &= ~skipped | negative | (first == 43)  # what digits_from skips is a sign
    np.minimum(n_int.view(np.uint64), _FAST_DIGITS, out=n_int.view(np.uint64))  # 0 … 8
    n_frac = np.minimum(n_frac, 2 * _FAST_DIGITS)

    # words[i] holds bytes i … i+7 (numpy reads the unaligned words).
    words = np.ndarray((len(b) - 7,), np.uint64, padded, 0, (1,))
    point -= 8
    int_word = words[point]
    int_word &= _KEEP_HIGH[n_int]
    if not plain:
        fast &= _digits_ok(int_word | _ZEROS_LOW[n_int])
    del n_int
    mantissa = _eight_digits(int_word)  # in place: int_word's array
    mantissa *= np.uint64(100_000_000)
    point += 9
    n_frac1 = np.minimum(n_frac, _FAST_DIGITS)
    frac_word = words[point]
    frac_word &= _LOW_BYTES[n_frac1]
    if not plain:
        fast &= _digits_ok(frac_word | _ZEROS_HIGH[n_frac1])
    mantissa += _eight_digits(frac_word)
    del frac_word
    n_frac2 = n_frac - n_frac1
    del n_frac1
    if np.any(n_frac2):  # more than 8 decimals: a second word of fraction digits
        point += 8
        frac_word = words[point] & _LOW_BYTES[n_frac2]
        if not plain:
            fast &= _digits_ok(frac_word | _ZEROS_HIGH[n_frac2])
        # The second word's trailing zero padding is divided away exactly.
        tail = _eight_digits(frac_word) // _POW10[_FAST_DIGITS - n_frac2]
        fast &= mantissa < _EXACT // _POW10[n_frac2]
        mantissa = mantissa * _POW10[n_frac2] + tail
        scale = _POW10_FLOAT[_FAST_DIGITS + n_frac2]
    else:
        scale = _POW10_FLOAT[_FAST_DIGITS]
    del point
    fast &= mantissa < _EXACT
    values = mantissa.astype(np.float64)
    del mantissa
    values /= scale
    np.multiply(values, 1 - 2 * negative.view(np.int8), out=values)  # -0.0 too, from 0.0

    slow = np.flatnonzero(~fast)
    if len(slow) == 0:
        return DecodedLines(values, counts)
    if len(slow) > _MANY_SLOW:
        try:
            every = np.fromstring(bytes(text), dtype=np.float64, sep=" ")
        except ValueError:
            every = np.empty(0)
        if every.size == len(starts):
            values[slow] = every[slow]
            return DecodedLines(
                values, counts, nonfinite_line=_first_nonfinite(values, slow, starts, line_ends)
            )
    for k, i in enumerate(slow):
        token = _token_at(padded, int(starts[i]))
        try:
            values[i] = float(token) if b"_" not in token else float("x")
        except ValueError:
            line = int(np.searchsorted(line_ends, starts[i]))
            nonfinite = _first_nonfinite(values, slow[:k], starts, line_ends)
            return DecodedLines(values, counts, line, token.decode("utf-8", "replace"), nonfinite)
    return DecodedLines(
        values, counts, nonfinite_line=_first_nonfinite(values, slow, starts, line_ends)
    )


def _token_at(padded: bytes, start: int) -> bytes:
    """The token that starts at byte ``start`` (up to the next separator)."""
    match = _TOKEN.match(padded, start)
    return match.group() if match else b""


def _first_nonfinite(
    values: NDArray[np.float64],
    slow: NDArray[np.intp],
    starts: NDArray[np.intp],
    line_ends: NDArray[np.intp],
) -> int:
    """Line index of the first NaN or infinite value (only slow tokens can be one), or -1."""
    bad = slow[~np.isfinite(values[slow])]
    return int(np.searchsorted(line_ends, starts[bad[0]])) if len(bad) else -1


def _eight_chars(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """8 ASCII digits (leading zeros) of whole numbers ``0 <= x < 10⁸``, first in the lowest byte.

    Two 4-digit halves go to the 32-bit lanes of a word, then each lane is
    split by a constant divisor (done as multiply-shift) into 16-bit and then
    8-bit lanes: the reverse of :func:`_eight_digits`. A split of ``v`` into
    quotient ``q`` (low lane) and remainder (high lane) is ``(v << w) - q·(d·2^w - 1)``.
    """
    high = x // np.uint64(10_000)
    v = (x << np.uint64(32)) - high * np.uint64(10_000 * 2**32 - 1)
    q = ((v * np.uint64(5243)) >> np.uint64(19)) & np.uint64(0x0000007F0000007F)  # lane // 100
    v = (v << np.uint64(16)) - q * np.uint64(100 * 2**16 - 1)
    q = ((v * np.uint64(103)) >> np.uint64(10)) & np.uint64(0x000F000F000F000F)  # lane // 10
    v = (v << np.uint64(8)) - q * np.uint64(10 * 2**8 - 1)
    v += _ASCII_ZEROS
    return v


_FORMAT_CHUNK = 1 << 13
"""Numbers formatted at a time: the temporaries stay in cache and below malloc's mmap threshold."""
_MAX_FAST_PRECISION = 6
"""Above this, ``"." + digits + separator`` no longer fits one 64-bit word."""
_MAX_WHOLE_DIGITS = 7
_SEPARATORS = (np.uint64(ord(" ")), np.uint64(ord("\n")))
_SIGN_FLIP = np.uint64(ord("0") ^ ord("-"))
_ONE = np.uint64(1)
_THREE = np.uint64(3)
_RELATIVE_ULP = 2.3e-16
"""More than ``spacing(x) / x`` for every finite double ``x > 0`` (``2⁻⁵²``)."""
_WORD_DTYPES = {8: np.uint64, 4: np.uint32, 2: np.uint16}


def format_fixed(values: NDArray[np.float64], precision: int) -> bytes:
    """Rows of ``values`` ``(N, C)`` as text: ``"%.{precision}f"`` numbers, one space apart.

    The same bytes as ``" ".join(f"{v:.{precision}f}" ...)`` per row, each row
    ended by a newline. Numbers are rounded by ``rint(|v| · 10^p)``, which
    equals printf's correctly rounded result except when ``|v| · 10^p`` lies
    within one unit in the last place of a half; blocks holding such a number,
    or one of more than 7 integer digits, and any ``precision > 6`` are
    formatted by Python. Each number is built in two 64-bit words (integer
    digits 8 at a time by division in byte lanes, the reverse of the reading
    method; then ``"." + fraction digits + separator``) and copied to its place
    in the text by whole-word stores.
    """
    n_rows, n_cols = values.shape
    if precision > _MAX_FAST_PRECISION or n_cols == 0:
        return _format_rows(values, precision)
    step = max(1, _FORMAT_CHUNK // n_cols)
    return b"".join(_format_block(values[i : i + step], precision) for i in range(0, n_rows, step))


def _format_block(values: NDArray[np.float64], precision: int) -> bytes:
    """:func:`format_fixed` of a few rows."""
    flat = values.ravel()
    scaled = np.abs(flat)
    scaled *= _POW10_FLOAT[precision]
    rounded = np.rint(scaled)
    near_half = np.abs(np.subtract(scaled, rounded))  # then |error| + scaled · ulp
    scaled *= _RELATIVE_ULP
    near_half += scaled
    if not rounded.max() < _POW10_FLOAT[_MAX_WHOLE_DIGITS + precision] or (near_half >= 0.5).any():
        return _format_rows(values, precision)  # also NaN and infinity
    parts = np.empty((2, len(flat)), dtype=np.uint64)  # integer part, fraction digits
    np.divmod(rounded.astype(np.uint64), _POW10[precision], out=(parts[0], parts[1]))
    chars = _eight_chars(parts)
    # Low word: the integer part, right-aligned in 8 digits, a "-" on the last leading zero.
    low = chars[0]
    digits = low - _ASCII_ZEROS
    digits &= np.negative(digits)  # its lowest set bit: 8 · (leading zeros) + a digit's bit
    first = np.bitwise_count(digits - _ONE)  # 64 if the integer part is 0
    first >>= _THREE
    np.minimum(first, np.uint64(_MAX_WHOLE_DIGITS), out=first)
    negative = np.signbit(flat)
    first -= negative
    first_bit = first << _THREE
    np.bitwise_xor(low, _SIGN_FLIP << first_bit, out=low, where=negative)
    # High word: "." and the fraction digits (none for precision 0), then a separator.
    suffix = precision + 2 if precision else 1
    separator = 8 * np.uint64(suffix - 1)
    if precision:
        high = chars[1] >> np.uint64(8 * (8 - precision))
        high <<= np.uint64(8)
        high |= np.uint64(ord(".")) | (_SEPARATORS[0] << separator)
    else:
        high = np.full(len(flat), _SEPARATORS[0])
    high.reshape(values.shape)[:, -1] ^= (_SEPARATORS[0] ^ _SEPARATORS[1]) << separator
    return _pack(low, high, first, suffix)


def _pack(
    low: NDArray[np.uint64], high: NDArray[np.uint64], first: NDArray[np.uint64], suffix: int
) -> bytes:
    """Bytes ``first`` … ``8 + suffix`` of each 16-byte text ``low, high``, concatenated.

    Each text is copied by stores of whole words that lie inside it (the
    first at its start, the last ending at its end), so no store spills into a
    neighbour and their order does not matter: 8-byte words when every text
    is at least that long, else 4 or 2.
    """
    length = np.subtract(8 + suffix, first, dtype=np.intp, casting="unsafe")
    ends = np.cumsum(length)
    total = int(ends[-1])
    size = 8 if 1 + suffix >= 8 else 4 if 1 + suffix >= 4 else 2
    dtype = _WORD_DTYPES[size]
    buffer = np.empty(-(-(total + 8) // 8) * 8, dtype=np.uint8)
    words = as_strided(buffer.view(dtype), shape=(len(buffer) - size + 1,), strides=(1,))
    starts = ends - length
    first_bit = first << _THREE
    high_up = high << _ONE  # high << (64 - b) as (high << 1) << (63 - b): no 64-bit shift
    word = low >> first_bit
    word |= high_up << (np.uint64(63) - first_bit)
    words[starts] = word.astype(dtype, copy=False)
    for k in range(1, -(-(8 + suffix) // size) - 1):  # only for words shorter than 8 bytes
        at = np.minimum(k * size, length - size)
        bits = first_bit + (at << 3).astype(np.uint64)
        shift = bits & np.uint64(63)
        in_low = (low >> shift) | (high_up << (np.uint64(63) - shift))
        words[starts + at] = np.where(bits < 64, in_low, high >> shift).astype(dtype)
    last = 8 * (8 + suffix - size)  # the same bit for every text
    if last >= 64:
        word = high >> np.uint64(last - 64)
    else:
        word = (low >> np.uint64(last)) | (high_up << np.uint64(63 - last))
    ends -= size
    words[ends] = word.astype(dtype, copy=False)
    return buffer[:total].tobytes()


def _format_rows(values: NDArray[np.float64], precision: int) -> bytes:
    """``"%.{precision}f"`` numbers, one space apart, a row a line, by Python's formatting."""
    row = " ".join([f"%.{precision}f"] * values.shape[1]) + "\n"
    return "".join(row % tuple(r) for r in values.tolist()).encode("ascii")
