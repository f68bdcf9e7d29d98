"""Numbers and money as each locale writes them, for any value a user can type.

Babel formats through ``decimal`` at the default 28-digit precision, so a 29-digit
budget ("99999999999999999999999999999 元") makes ``NumberPattern.apply`` raise
``InvalidOperation`` while we print the "number too large" note about it. Every
function here is total instead: finite values up to 10^15 go through Babel as
usual; larger magnitudes (far beyond any price or token count we size) are written
as a mantissa times a power of ten (``1.5×10²⁹``); infinities and NaN print as
``∞`` / ``NaN``. Ints too large for a float and ``Decimal`` values are accepted.
"""

from __future__ import annotations

import operator
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from babel import Locale
from babel.numbers import NumberPattern, get_currency_symbol, parse_pattern

Real = int | float | Decimal

BABEL = {"zh": Locale.parse("zh_CN"), "en": Locale.parse("en_US")}
# Below 10^15 Babel's 28-digit quantize always has room for two decimals.
HUGE_DIGITS = 15
# Euro-area style "$" is ambiguous in a CNY-first product: US dollars always read US$.
_SYMBOLS = {"USD": "US$"}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_BIG_WORDS = {
    "zh": ((Decimal("1e12"), "万亿"), (Decimal("1e8"), "亿"), (Decimal("1e4"), "万")),
    "en": ((Decimal("1e12"), "T"), (Decimal("1e9"), "B"), (Decimal("1e6"), "M"), (Decimal("1e3"), "K")),
}


@lru_cache(maxsize=64)
def _pattern(pattern: str) -> NumberPattern:
    """Parsed once: Babel re-parses locale and pattern on every call otherwise (~80 µs each)."""
    return parse_pattern(pattern)


def as_decimal(value: Real) -> Decimal:
    """``value`` exactly as written: floats through ``str`` so 0.1 stays 0.1; numpy scalars too."""
    if isinstance(value, Decimal | int):
        return Decimal(value)
    try:
        return Decimal(operator.index(value))  # type: ignore[arg-type]  # numpy integers
    except TypeError:
        return Decimal(str(float(value)))  # floats, numpy floats (their repr is "np.float64(…)")


def _special(value: Decimal) -> str | None:
    """How a value Babel cannot quantize reads, or None when Babel can format it.

    Works on the digit tuple, so even ``Decimal("1e999999999")`` (beyond the context's
    exponent range, where ``abs`` itself overflows) reads as ``1×10⁹⁹⁹⁹⁹⁹⁹⁹``.
    """
    if value.is_nan():
        return "NaN"
    sign = "-" if value.is_signed() else ""
    if value.is_infinite():
        return sign + "∞"
    if value.adjusted() < HUGE_DIGITS:
        return None
    exp = value.adjusted()
    digits = value.as_tuple().digits
    mantissa = round(Decimal((0, digits, 1 - len(digits))), 2)
    if mantissa >= 10:
        mantissa, exp = mantissa / 10, exp + 1
    return f"{sign}{mantissa.normalize():f}×10{str(exp).translate(_SUPERSCRIPT)}"


def number(lang: str, value: Real, pattern: str = "#,##0.##") -> str:
    """A grouped decimal in ``lang`` (2,800 / 2,800.5); never raises on a number."""
    d = as_decimal(value)
    special = _special(d)
    if special is not None:
        return special
    try:
        return str(_pattern(pattern).apply(d, BABEL[lang]))
    except (InvalidOperation, ValueError):  # an odd caller-supplied pattern
        return str(_pattern("#,##0.##").apply(d, BABEL[lang]))


def currency_symbol(lang: str, currency: str) -> str:
    """¥ / CN¥ for yuan per locale, US$ for US dollars in both languages, Babel's symbol otherwise."""
    return _SYMBOLS.get(currency) or str(get_currency_symbol(currency, BABEL[lang]))


def money(lang: str, amount: Real, currency: str = "CNY") -> str:
    """An amount with its own currency's symbol: ¥2,800 (zh CNY), CN¥2,800 (en CNY), US$540."""
    d = as_decimal(amount)
    digits = "#,##0" if d.is_finite() and d.adjusted() >= 2 else "#,##0.##"
    shown = number(lang, d.copy_abs(), digits)
    negative = d.is_signed() and not d.is_nan() and not d.is_zero()
    return ("-" if negative else "") + currency_symbol(lang, currency) + shown


def percent(lang: str, fraction: Real) -> str:
    """A fraction as a percentage: 0.785 → 78.5%."""
    d = as_decimal(fraction)
    special = _special(d.scaleb(2)) if d.is_finite() and d.adjusted() < 999_000 else _special(d)
    if special is not None:
        return special + "%"
    return str(_pattern("#,##0.#%").apply(d, BABEL[lang]))


def big(lang: str, value: Real) -> str:
    """Large counts the way each language says them: 2亿 / 3.5万 vs 200M / 35K."""
    d = as_decimal(value)
    if d.is_finite() and d.adjusted() < HUGE_DIGITS + 4:
        for size, word in _BIG_WORDS["zh" if lang == "zh" else "en"]:
            if d.copy_abs() >= size:
                return number(lang, d / size) + word
    return number(lang, d)


def is_number(value: object) -> bool:
    """A value the numeric format specs apply to (bools are words, not numbers)."""
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def plural_form(lang: str, count: Real) -> str:
    """CLDR plural category of ``count``: 'one' / 'other' in English, always 'other' in Chinese."""
    d = as_decimal(count)
    if not d.is_finite():
        return "other"
    if d == d.to_integral_value():
        d = d.to_integral_value()  # 1.0 billed months is one month, not "1.0 months"
    return str(BABEL[lang].plural_form(abs(d)))
