"""Portuguese text helpers shared by search, the glossary and sorted lists.

- :func:`fold` drops case and accents, whatever form (NFC or NFD) the text came in;
- :func:`term_key` turns a word into its search key: folded, then stemmed with the
  Snowball Portuguese stemmer, so "quantização", "QUANTIZACOES" and "quantizações"
  share one key;
- :func:`collation_key` sorts in Portuguese order with ICU, ignoring case and accents.

None of this depends on the server's locale.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on first use: a page served from the disk cache needs neither
    import icu

WORD_RE = re.compile(r"\w+")
# Folded words lose the accents the stemmer needs to find Portuguese suffixes
# ("quantizacao" would keep its "-acao"); these endings get them back first.
_ACCENT_ENDINGS = (("coes", "ções"), ("cao", "ção"), ("oes", "ões"), ("aes", "ães"), ("ao", "ão"))


@dataclass(frozen=True)
class Word:
    """A word found in a text.

    Attributes:
        start: offset of its first character in the (NFC) text.
        end: offset just past its last character.
        text: the word as written.
    """

    start: int
    end: int
    text: str


def nfc(text: str) -> str:
    """Return ``text`` in Unicode NFC, so decomposed accents become single characters."""
    return unicodedata.normalize("NFC", text)


@lru_cache(maxsize=1 << 16)  # search folds every word of each result's section, per query
def fold(text: str) -> str:
    """Lower-case ``text`` and drop its accents: "DECODIFICAÇÃO" → "decodificacao"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return nfc(bare.casefold())


def words(text: str) -> list[Word]:
    """Split NFC ``text`` into words (letters and digits), keeping their offsets."""
    return [Word(m.start(), m.end(), m.group()) for m in WORD_RE.finditer(text)]


@cache
def _stemmer() -> Any:  # snowballstemmer ships no types
    import snowballstemmer

    return snowballstemmer.stemmer("portuguese")


@cache
def term_key(word: str) -> str:
    """The key a word is indexed and matched by: folded, accents restored on common endings,
    stemmed.

    A final ``s`` the Portuguese stemmer keeps (loanwords: "kernels", "GPUs") is dropped,
    so singular and plural meet. The same steps run on the index and on the query, so
    they only need to be consistent, not linguistically perfect.
    """
    folded = fold(word)
    for ending, accented in _ACCENT_ENDINGS:
        if folded.endswith(ending):
            folded = folded[: -len(ending)] + accented
            break
    key = fold(_stemmer().stemWord(folded))
    if len(key) > 3 and key.endswith("s") and not key.endswith("ss"):
        key = key[:-1]
    return key


def text_keys(text: str) -> list[str]:
    """The key of every word of ``text``, in order."""
    return [term_key(w.text) for w in words(nfc(text))]


@cache
def _collator() -> icu.Collator:
    import icu

    collator = icu.Collator.createInstance(icu.Locale("pt_BR"))
    collator.setStrength(icu.Collator.PRIMARY)
    return collator


@cache
def _tie_breaker() -> icu.Collator:
    import icu

    return icu.Collator.createInstance(icu.Locale("pt_BR"))


def collation_key(text: str) -> tuple[bytes, bytes]:
    """Sort key for Portuguese order, ignoring case and accents (ICU, pt-BR).

    ``sorted(["Zebra", "Ética", "Árvores", "avaliação"], key=collation_key)`` gives
    Árvores, avaliação, Ética, Zebra. Ties at that level fall back to ICU's full order,
    so the result never depends on the input order.
    """
    text = nfc(text)
    return bytes(_collator().getSortKey(text)), bytes(_tie_breaker().getSortKey(text))
