"""A plain table and its renderings: Markdown, CSV, LaTeX and HTML."""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass, field

_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}"}


@dataclass(frozen=True)
class Table:
    """A titled grid of already formatted cells; the first column is the row label."""

    name: str
    """File stem, e.g. ``table2``."""
    title: str
    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        def line(cells: list[str]) -> str:
            return "| " + " | ".join(c.replace("|", r"\|") for c in cells) + " |"

        out = [
            f"**{self.title}**",
            "",
            line(self.header),
            "|" + "|".join(["---"] + ["---:"] * (len(self.header) - 1)) + "|",
        ]
        out += [line(r) for r in self.rows]
        out += ["", *self.notes] if self.notes else []
        return "\n".join(out) + "\n"

    def csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        return buf.getvalue()

    def latex(self) -> str:
        def esc(cell: str) -> str:
            text = "".join(_LATEX_ESCAPES.get(ch, ch) for ch in cell)
            return (
                text.replace("±", r"$\pm$")
                .replace("Δ", r"$\Delta$")
                .replace("↑", r"$\uparrow$")
                .replace("↓", r"$\downarrow$")
            )

        spec = "l" + "r" * (len(self.header) - 1)
        out = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{esc(self.title)}}}",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            " & ".join(esc(h) for h in self.header) + r" \\",
            r"\midrule",
        ]
        out += [" & ".join(esc(c) for c in r) + r" \\" for r in self.rows]
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(out) + "\n"

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in self.rows)
        notes = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in self.notes)
        return (
            f"<h3>{html.escape(self.title)}</h3><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{notes}"
        )
