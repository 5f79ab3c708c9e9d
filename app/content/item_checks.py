"""Item-writing checks: the quiz flaws that item-writing guides list, as ``warning`` problems.

The rules follow Haladyna, Downing and Rodriguez's taxonomy of multiple-choice
item-writing guidelines ("A Review of Multiple-Choice Item-Writing Guidelines for
Classroom Assessment", *Applied Measurement in Education* 15(3), 2002), which Moodle's
question-writing documentation cites as well. Each rule and its threshold is in
``lessons/README.md`` ("Boas práticas nas perguntas").

An empty explanation is not here: it is already an ``error`` of the quiz model
(:mod:`app.content.quiz`, ``explanation`` has ``min_length=1``).

The checks read what the learner sees: the rendered HTML with its tags stripped
(:func:`app.content.markdown.plain_text`), so Markdown marks do not count as length.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from app.content.errors import ContentError
from app.content.lessons import Lesson
from app.content.markdown import plain_text
from app.content.numbers import format_number
from app.content.quiz import Question
from app.content.text import fold
from app.i18n import gettext

LONGEST_RATIO = 1.5
"""The key is "visibly longest" when it is at least this many times the mean of the others."""
MIN_OPTIONS = 3
"""Fewer options than this leaves guessing too easy."""
NEAR_DUPLICATE = 0.9
"""Two options whose folded texts are this similar (``difflib`` ratio) are near-duplicates."""
NEAR_MIN_CHARS = 20
"""Near-duplicates are judged on texts this long; short names ("MLX-LM", "MLX-VLM") only when equal.
Options that differ in their numbers ("50 tokens/s", "500 tokens/s") are never near-duplicates."""
# The kinds these rules are about: numeric and ordering questions have no options.
OPTION_KINDS = frozenset({"single", "multiple", "scenario"})
MIN_QUESTIONS_FOR_PATTERNS = 3
"""Lesson-wide patterns (longest key, key position) are judged from this many questions on."""
MIN_MULTIPLE_FOR_SPREAD = 2
"""The spread of right options is judged from this many multiple-answer questions on."""
MIN_SLOTS = 2
"""Options read as slots ("dev = Ollama, staging = llama.cpp") when they all split into the
same number of parts, at least this many, on commas and semicolons."""
MIN_ECHO_CHARS = 3
"""Stem words this long or longer count when echoed into the key ("AMD", "GPU", "prefill")."""
# Words the stem and an option share without giving anything away.
_ECHO_STOPWORDS = frozenset(
    (
        "que",
        "uma",
        "uns",
        "umas",
        "dos",
        "das",
        "nos",
        "nas",
        "num",
        "numa",
        "com",
        "sem",
        "por",
        "para",
        "pelo",
        "pela",
        "pelos",
        "pelas",
        "mais",
        "menos",
        "como",
        "quando",
        "onde",
        "qual",
        "quais",
        "quem",
        "cujo",
        "cuja",
        "seu",
        "sua",
        "seus",
        "suas",
        "ele",
        "ela",
        "eles",
        "elas",
        "isso",
        "isto",
        "esse",
        "essa",
        "este",
        "esta",
        "aquele",
        "aquela",
        "ser",
        "sao",
        "foi",
        "sera",
        "estao",
        "tem",
        "texto",
        "textos",
        "licao",
        "curso",
        "segundo",
        "diz",
        "dizem",
        "pergunta",
        "opcao",
        "resposta",
        "certa",
        "certas",
        "correta",
        "corretas",
        "marque",
        "todas",
        "afirmacoes",
    )
)

_ALL_OR_NONE = re.compile(
    r"^(todas|todos|nenhuma|nenhum)\s+(as\s+|os\s+|das\s+|dos\s+)?"
    r"(anteriores|acima|alternativas|opcoes|respostas)\b"
)
_NEGATIVE = re.compile(r"\b(n[aã]o|exceto|incorret[ao]s?|fals[ao]s?)\b", re.I)
_EMPHASIS = re.compile(r"<(strong|em)>.*?</\1>", re.S)
_VERDICT = re.compile(
    r"^\s*(certo|correto|correta|errado|errada|incorreto|incorreta)\b[.:!,]?", re.I
)
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+")
# Absolute words ("specific determiners" in Haladyna et al.'s rule 31), matched in the
# lower-case text with or without accents. "Quase sempre" is not absolute, nor is "só" after
# "um/uma + noun" ("uma RTX só" means "a single RTX").
_ABSOLUTE = re.compile(
    r"\b(nunca|jamais|sempre|qualquer|quaisquer|[uú]nic[oa]s?|[uú]nicamente|s[oó]|somente"
    r"|apenas|tod[oa]s|exclusiv[oa]s?|exclusivamente)\b"
)
_NOT_ABSOLUTE = re.compile(r"\bquase \w+|\buma? \w+ s[oó]\b")
# An ordering item that tells its own position: an ordinal or sequence word, an enumeration
# ("1.", "2)", "a)"), or the name of a pipeline stage before a colon ("dev:", "prod:").
_POSITION_WORD = re.compile(
    r"\b(primeir[oa]s?|terceir[oa]s?|quart[oa]s?|quint[oa]s?|ultim[oa]s?|penultim[oa]s?"
    r"|em segundo lugar|por fim|por ultimo|finalmente|enfim|depois|em seguida|antes de tudo"
    r"|no inicio|no fim|comeco)\b"
)
_LEADING_POSITION = re.compile(
    r"^\s*(\d+\s*[.)ºª°]|[a-i]\s*\)|(dev|desenvolvimento|staging|homologacao|prod|producao)\s*[:=])"
)
# A numeric prompt with a decimal answer must say to write the comma: "casas decimais" alone
# leaves "4.41" possible, which a pt-BR Moodle reads as 441 (issue 36).
_DECIMAL_COMMA = re.compile(r"\bvirgula\b")


@dataclass(frozen=True)
class ItemWarning:
    """One item-writing warning about a question.

    Attributes:
        line: 1-based line of the question in its file.
        message: what to fix, in Portuguese (from the gettext catalog).
    """

    question_id: str
    line: int
    message: str


def _folded(html: str) -> str:
    return " ".join(_WORD.findall(fold(plain_text(html))))


def question_warnings(question: Question) -> list[ItemWarning]:
    """The item-writing warnings about one question, in the order of the rules.

    Rules: the right option visibly longest (single and scenario questions), or the right
    options longer on average than the wrong (multiple-answer); a key made of the parts most
    options share (convergence); a prompt word only the right options repeat;
    "todas/nenhuma das anteriores"; a negative word in the prompt not in bold;
    fewer than three options; duplicate options; an explanation that only repeats
    its option.

    An ``ordering`` question is checked for items that give their own position, a
    ``numeric`` one for a decimal value whose prompt does not say how to write it.

    Args:
        question: a rendered question; for a scenario, its key already resolved.
    """
    if question.kind == "ordering":
        return [ItemWarning(question.id, question.line, m) for m in _positions_told(question)]
    if question.kind == "numeric":
        return [ItemWarning(question.id, question.line, m) for m in _number_format(question)]
    if question.kind not in OPTION_KINDS:
        return []
    out: list[str] = []
    texts = {o.id: plain_text(o.text_html) for o in question.options}
    if question.kind != "multiple" and len(question.answer) == 1:
        out.extend(_longest_key(question, texts))
    else:
        out.extend(_longer_keys(question, texts))
    out.extend(_convergence(question, texts))
    out.extend(_stem_echo(question))
    for option in question.options:
        if _ALL_OR_NONE.match(_folded(option.text_html)):
            out.append(
                gettext(
                    "question `%(question)s`: the option `%(option)s` is “%(text)s”; "
                    "“all/none of the above” options test reading, not knowledge"
                )
                % {"question": question.id, "option": option.id, "text": texts[option.id]}
            )
    stem = _EMPHASIS.sub(" ", question.legend_html + " " + question.prompt_rest_html)
    negative = _NEGATIVE.search(plain_text(stem))
    if negative:
        out.append(
            gettext(
                "question `%(question)s`: the prompt says “%(word)s” without bold; "
                "write a negative word as **%(word)s** so nobody misses it"
            )
            % {"question": question.id, "word": negative.group(1)}
        )
    if len(question.options) < MIN_OPTIONS:
        out.append(
            gettext(
                "question `%(question)s` has %(num)s options; give it at least %(min)s, "
                "or guessing is too easy"
            )
            % {"question": question.id, "num": len(question.options), "min": MIN_OPTIONS}
        )
    out.extend(_duplicates(question))
    out.extend(_absolute_distractors(question))
    for option in question.options:
        if _echoes(option.explanation_html, option.text_html):
            out.append(
                gettext(
                    "question `%(question)s`: the explanation of `%(option)s` only repeats "
                    "the option; say why it is right or wrong"
                )
                % {"question": question.id, "option": option.id}
            )
    return [ItemWarning(question.id, question.line, message) for message in out]


def _longest_key(question: Question, texts: dict[str, str]) -> list[str]:
    (key,) = question.answer
    others = [len(t) for oid, t in texts.items() if oid != key]
    if key not in texts or not others:
        return []
    mean = sum(others) / len(others)
    if len(texts[key]) < LONGEST_RATIO * mean:
        return []
    return [
        gettext(
            "question `%(question)s`: the right option is the longest, %(key)s characters "
            "against a mean of %(mean)s in the others (1.5× or more gives the answer away)"
        )
        % {"question": question.id, "key": len(texts[key]), "mean": round(mean)}
    ]


def _longer_keys(question: Question, texts: dict[str, str]) -> list[str]:
    """Right options of a multiple-answer question visibly longer, on average, than the wrong."""
    keys = [len(t) for oid, t in texts.items() if oid in question.answer]
    others = [len(t) for oid, t in texts.items() if oid not in question.answer]
    if not keys or not others:
        return []
    mean_keys, mean_others = sum(keys) / len(keys), sum(others) / len(others)
    if mean_keys < LONGEST_RATIO * mean_others:
        return []
    return [
        gettext(
            "question `%(question)s`: the right options have %(keys)s characters on average "
            "against %(others)s in the wrong ones (1.5× or more gives them away); give the "
            "wrong options the same detail"
        )
        % {"question": question.id, "keys": round(mean_keys), "others": round(mean_others)}
    ]


def _slots(text: str) -> list[str]:
    return [" ".join(_WORD.findall(fold(part))) for part in re.split(r"[,;]", text)]


def _convergence(question: Question, texts: dict[str, str]) -> list[str]:
    """A single key made of slots ("dev = Ollama, staging = …") that holds, in every slot that
    varies, the value most options share: each distractor is one swap away from the key, so
    the "centroid" is the answer (convergence cue)."""
    if len(question.answer) != 1 or len(texts) < MIN_OPTIONS:
        return []
    (key,) = question.answer
    slots = {oid: _slots(t) for oid, t in texts.items()}
    sizes = {len(parts) for parts in slots.values()}
    if key not in slots or len(sizes) != 1 or sizes.pop() < MIN_SLOTS:
        return []
    varying = 0
    for position in range(len(slots[key])):
        counts = Counter(parts[position] for parts in slots.values())
        if len(counts) == 1:
            continue
        varying += 1
        ranked = counts.most_common(2)
        if ranked[0][0] != slots[key][position] or ranked[0][1] == ranked[1][1]:
            return []
    if varying < MIN_SLOTS:
        return []
    return [
        gettext(
            "question `%(question)s`: in each of its parts, the right option holds the value "
            "most options share; the wrong options are single swaps of it, so the answer is "
            "the one in the middle: vary the wrong options more"
        )
        % {"question": question.id}
    ]


def _content_words(html: str) -> set[str]:
    return {
        w
        for w in _WORD.findall(fold(plain_text(html)))
        if len(w) >= MIN_ECHO_CHARS and w not in _ECHO_STOPWORDS and not w.isdigit()
    }


def _stem_echo(question: Question) -> list[str]:
    """A word of the stem that every right option repeats and no wrong option does."""
    if not question.answer:
        return []
    stem = _content_words(question.legend_html + " " + question.prompt_rest_html)
    keys = [_content_words(o.text_html) for o in question.options if o.id in question.answer]
    wrong = [_content_words(o.text_html) for o in question.options if o.id not in question.answer]
    if not keys or not wrong:
        return []
    echoed = stem.intersection(*keys) - set().union(*wrong)
    if not echoed:
        return []
    return [
        gettext(
            "question `%(question)s`: only the right options repeat “%(words)s” from the "
            "prompt; a learner can match the words without knowing the answer"
        )
        % {"question": question.id, "words": "”, “".join(sorted(echoed))}
    ]


def _absolutes(html: str) -> list[str]:
    """The absolute words of a text ("nunca", "só"...), in lower case, in order, once each."""
    text = _NOT_ABSOLUTE.sub(" ", " ".join(_WORD.findall(plain_text(html).casefold())))
    return list(dict.fromkeys(m.group(1) for m in _ABSOLUTE.finditer(text)))


def _absolute_distractors(question: Question) -> list[str]:
    """Absolute words in wrong options while no right option has one: "avoid the absolute
    option" would then score. (Scenario keys are resolved before the checks run.)"""
    if not question.answer:
        return []
    keys = [o for o in question.options if o.id in question.answer]
    if any(_absolutes(o.text_html) for o in keys):
        return []
    out = []
    for option in question.options:
        found = _absolutes(option.text_html) if option.id not in question.answer else []
        if found:
            out.append(
                gettext(
                    "question `%(question)s`: the wrong option `%(option)s` says “%(words)s”, "
                    "and no right option has an absolute word; learners who avoid absolute "
                    "options score without knowing why"
                )
                % {"question": question.id, "option": option.id, "words": "”, “".join(found)}
            )
    return out


def _positions_told(question: Question) -> list[str]:
    """Ordering items whose own text tells their position ("primeiro", "1.", "prod:")."""
    out = []
    for item in question.items:
        plain = fold(plain_text(item.text_html))
        told = _LEADING_POSITION.match(plain) or _POSITION_WORD.search(_folded(item.text_html))
        if told:
            out.append(
                gettext(
                    "question `%(question)s`: the item `%(item)s` says “%(cue)s”, which tells "
                    "its position; the order should be learned, not read off the items"
                )
                % {"question": question.id, "item": item.id, "cue": told.group(0).strip()}
            )
    return out


def _number_format(question: Question) -> list[str]:
    """A decimal right value whose prompt does not say to write it with a comma.

    "3.438" reads as 3438 here (see :func:`app.content.numbers.parse_number`), and a pt-BR
    Moodle reads "4.41" as 441 (the GIFT export keeps the prompt), so a prompt whose answer
    has decimals says "com vírgula"; "casas decimais" alone does not say which mark to use.
    """
    key = question.numeric
    if key is None or key.displayed == key.displayed.to_integral_value():
        return []
    prompt = _folded(question.legend_html + " " + question.prompt_rest_html)
    if _DECIMAL_COMMA.search(prompt):
        return []
    return [
        gettext(
            "question `%(question)s`: the right value %(value)s has decimals, and the prompt "
            "does not say to write it with a comma; say “com vírgula, uma ou duas casas "
            "decimais”: a point is read as a thousands mark (“3.438” is 3438 here, and a "
            "pt-BR Moodle reads “4.41” as 441)"
        )
        % {"question": question.id, "value": format_number(key.displayed)}
    ]


def _similar(first: str, second: str) -> bool:
    """``difflib`` ratio of the two texts ≥ :data:`NEAR_DUPLICATE`.

    The cheap upper bounds (``real_quick_ratio``, ``quick_ratio``) rule most pairs out
    before the full ratio is computed; the answer is the same.
    """
    matcher = SequenceMatcher(None, first, second)
    return (
        matcher.real_quick_ratio() >= NEAR_DUPLICATE
        and matcher.quick_ratio() >= NEAR_DUPLICATE
        and matcher.ratio() >= NEAR_DUPLICATE
    )


def _duplicates(question: Question) -> list[str]:
    out = []
    folded = [(o.id, _folded(o.text_html)) for o in question.options]
    for i, (first_id, first) in enumerate(folded):
        for second_id, second in folded[i + 1 :]:
            near = (
                min(len(first), len(second)) >= NEAR_MIN_CHARS
                and _NUMBER.findall(first) == _NUMBER.findall(second)
                and _similar(first, second)
            )
            if first == second or near:
                out.append(
                    gettext(
                        "question `%(question)s`: the options `%(first)s` and `%(second)s` "
                        "are the same or almost the same (ignoring case and accents)"
                    )
                    % {"question": question.id, "first": first_id, "second": second_id}
                )
    return out


def _echoes(explanation_html: str, option_html: str) -> bool:
    """True when the explanation adds no word to its option's text (besides "Certo."/"Errado.")."""
    rest = _VERDICT.sub("", plain_text(explanation_html))
    words = set(_WORD.findall(fold(rest)))
    return words <= set(_WORD.findall(fold(plain_text(option_html))))


def lesson_warnings(lesson: Lesson) -> list[ContentError]:
    """Every item-writing warning of a lesson: each question's, then the lesson-wide patterns.

    Lesson-wide rules: the key is the longest option in most single-answer questions;
    one position holds the key in most single-answer questions (shuffling hides it from
    learners, not from a printed copy); every multiple-answer question has the same
    number of right options.

    Args:
        lesson: a lesson whose scenario keys are resolved.

    Returns:
        ``warning`` problems located at the question concerned (lesson-wide ones at the
        first question they count).
    """
    questions = list(lesson.questions.values())
    out = [
        ContentError(lesson.path, w.line, w.message, level="warning")
        for question in questions
        for w in question_warnings(question)
    ]
    single = [q for q in questions if q.kind in OPTION_KINDS - {"multiple"} and len(q.answer) == 1]
    if len(single) >= MIN_QUESTIONS_FOR_PATTERNS:
        longest = [q for q in single if _key_is_longest(q)]
        if 2 * len(longest) > len(single):
            msg = gettext(
                "the right option is the longest in %(num)s of %(total)s single-answer "
                "questions of this lesson; learners can pick the longest and score"
            ) % {"num": len(longest), "total": len(single)}
            out.append(ContentError(lesson.path, single[0].line, msg, level="warning"))
        positions = Counter(_key_position(q) for q in single)
        position, count = positions.most_common(1)[0]
        if 2 * count > len(single):
            msg = gettext(
                "the key is option number %(position)s in %(num)s of %(total)s single-answer "
                "questions; the page shuffles options, but a printed copy shows the pattern"
            ) % {"position": position, "num": count, "total": len(single)}
            out.append(ContentError(lesson.path, single[0].line, msg, level="warning"))
    multiple = [q for q in questions if q.kind == "multiple"]
    if len(multiple) >= MIN_MULTIPLE_FOR_SPREAD and len({len(q.answer) for q in multiple}) == 1:
        msg = gettext(
            "all %(total)s multiple-answer questions have %(num)s right options; vary the "
            "number so that counting gives nothing away"
        ) % {"total": len(multiple), "num": len(multiple[0].answer)}
        out.append(ContentError(lesson.path, multiple[0].line, msg, level="warning"))
    return out


def _key_is_longest(question: Question) -> bool:
    (key,) = question.answer
    lengths = {o.id: len(plain_text(o.text_html)) for o in question.options}
    return all(lengths[key] > n for oid, n in lengths.items() if oid != key)


def _key_position(question: Question) -> int:
    (key,) = question.answer
    return next(i for i, o in enumerate(question.options, 1) if o.id == key)


def warnings_by_question(lesson: Lesson) -> dict[str, list[str]]:
    """Each question's own item-writing warnings (messages), for the instructor preview.

    Args:
        lesson: a lesson whose scenario keys are resolved.

    Returns:
        question id → messages; questions without warnings are left out.
    """
    out: dict[str, list[str]] = {}
    for question in lesson.questions.values():
        messages = [w.message for w in question_warnings(question)]
        if messages:
            out[question.id] = messages
    return out


def check_items(lessons: Iterable[Lesson]) -> list[ContentError]:
    """The item-writing warnings of every lesson (``curso check`` and the instructor pages)."""
    return [problem for lesson in lessons for problem in lesson_warnings(lesson)]
