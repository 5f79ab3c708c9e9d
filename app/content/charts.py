"""``chart`` blocks: before/after bar charts rendered as accessible inline SVG.

The SVG is drawn to scale (bar length ∝ value), "before" in grey and "after" in
orange, every value labelled, with a data table as the text alternative.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from app.content.errors import ContentError
from app.content.markdown import escape_html, inline_text, render_inline, slugify
from app.content.page_ids import chart_anchor
from app.content.yamlsrc import (
    YamlSpec,
    YamlSyntaxError,
    parse_yaml,
    syntax_problem,
    validation_problems,
)
from app.i18n import gettext

LABEL_H = 22
BAR_H = 18
GAP = 18
# Bars use at most this share of the width, so value labels always fit beside them.
MAX_BAR_PCT = 55.0


class BarSpec(YamlSpec):
    """One pair of bars."""

    label: str = Field(min_length=1)
    before: float = Field(ge=0, allow_inf_nan=False)
    after: float = Field(ge=0, allow_inf_nan=False)
    approx: bool = False
    note: str | None = None


class ChartSpec(YamlSpec):
    """A chart block as written in YAML."""

    title: str = Field(min_length=1)
    unit: str = Field(min_length=1)
    before: str = Field(default_factory=lambda: gettext("before"))
    after: str = Field(default_factory=lambda: gettext("after"))
    source: str | None = None
    bars: list[BarSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _something_to_draw(self) -> ChartSpec:
        if all(b.before == 0 and b.after == 0 for b in self.bars):
            raise ValueError(gettext("every value is zero: there is nothing to draw"))
        return self


def number(value: float, approx: bool = False) -> str:
    """Format ``value`` the Brazilian way (``14,5``), with ``~`` when approximate."""
    text = f"{value:g}".replace(".", ",")
    return f"~{text}" if approx else text


def parse_chart(text: str, file: Path, first_line: int) -> tuple[str, list[ContentError]]:
    """Validate a ``chart`` block and render it.

    Returns:
        The ``<figure>`` HTML (empty on error) and the problems found.
    """
    try:
        source = parse_yaml(text)
        spec = ChartSpec.model_validate(source.data)
    except YamlSyntaxError as exc:
        return "", [syntax_problem(file, first_line, exc)]
    except ValidationError as exc:
        return "", validation_problems(file, first_line, source, exc)
    return render_chart(spec), []


def render_chart(spec: ChartSpec) -> str:
    """Render ``spec`` as a figure: SVG bars to scale plus a data table.

    Bar lengths are percentages of the figure's width and text keeps its size, so
    the chart stays legible from a 360 px phone to a laptop.
    """
    # Lesson texts are inline Markdown: HTML where it is shown, plain text inside the SVG
    # (``<title>`` and ``<text>`` hold no markup).
    ident = chart_anchor(slugify(inline_text(spec.title)))
    top = max(max(b.before, b.after) for b in spec.bars)
    rows, y = [], 0
    for bar in spec.bars:
        rows.append(
            f'<text class="chart-label" x="0" y="{y + 15}">'
            f"{escape_html(inline_text(bar.label))}</text>"
        )
        y += LABEL_H
        for kind, value, name in (
            ("before", bar.before, spec.before),
            ("after", bar.after, spec.after),
        ):
            pct = max(value / top * MAX_BAR_PCT, 0.2)
            rows.append(
                f'<rect class="chart-{kind}" x="0" y="{y}" width="{pct:.2f}%" height="{BAR_H}" '
                'rx="3"/>'
                f'<text class="chart-value" x="{pct + 1.5:.2f}%" y="{y + 14}">'
                f"{escape_html(number(value, bar.approx))} {escape_html(inline_text(spec.unit))} "
                f"({escape_html(inline_text(name))})</text>"
            )
            y += BAR_H + 4
        y += GAP
    svg = (
        f'<svg class="chart-svg" width="100%" height="{y}" role="img" '
        f'aria-labelledby="{ident}-t" focusable="false">'
        f'<title id="{ident}-t">{escape_html(inline_text(spec.title))}</title>{"".join(rows)}</svg>'
    )
    return (
        f'<figure class="chart" id="{ident}">'
        f"<figcaption>{render_inline(spec.title)} "
        '<span class="chart-legend"><span class="swatch chart-before"></span>'
        f"{render_inline(spec.before)} "
        f'<span class="swatch chart-after"></span>{render_inline(spec.after)}</span></figcaption>'
        f"{svg}{_table(spec)}</figure>\n"
    )


def _table(spec: ChartSpec) -> str:
    scenario, gain, show = gettext("Scenario"), gettext("Gain"), gettext("See the data as a table")
    unit = render_inline(spec.unit)
    before = f"{render_inline(spec.before[:1].upper() + spec.before[1:])} ({unit})"
    after = f"{render_inline(spec.after[:1].upper() + spec.after[1:])} ({unit})"
    columns = (escape_html(scenario), before, after, escape_html(gain))
    head = "<tr>" + "".join(f'<th scope="col">{c}</th>' for c in columns) + "</tr>"
    body = "".join(
        f'<tr><th scope="row">{render_inline(b.label)}</th><td>{number(b.before, b.approx)}</td>'
        f"<td>{number(b.after, b.approx)}</td><td>{render_inline(b.note or '')}</td></tr>"
        for b in spec.bars
    )
    caption = f"<caption>{render_inline(spec.title)}</caption>"
    return (
        f'<details class="chart-data"><summary>{escape_html(show)}</summary>'
        f"<table>{caption}<thead>{head}</thead><tbody>{body}</tbody></table></details>"
    )
