"""Paper-style figures (PNG and PDF) from a figure's aggregated table.

Serif fonts, one marker and colour per series (hatches on bars, so that a
black-and-white print still tells series apart), the range of the
repetitions as error bars, and the legend outside the data area. One panel
per combination of the other swept axes. A `table` draws the medians as a
table, for the papers' data tables drawn as figures (e.g. Strife's Fig 5).
With a list of metrics, `line` draws one line per series and metric (line
style per metric, e.g. BCC's average and maximum memory, bcc Fig 10) and
`grouped_bar` one bar per series and metric in each group (e.g. latency avg,
p50, p99 of OCC and BCC, bcc Figs 11-12). A `timeseries` draws one run per
series instead of the table: its per-second throughput over the measured
interval (the engine's `--timeline`), with a dotted vertical line at each
phase change of the run's logged schedule, labelled with the phase's value
(Strife Fig 8d: the hot records' n).
"""
from __future__ import annotations

import itertools
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")  # files only; never a display

import matplotlib.pyplot as plt  # noqa: E402  (must follow matplotlib.use)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ccbench.fileio import write_atomically  # noqa: E402
from ccbench.run.engine import STATUS_OK  # noqa: E402
from ccbench.specification.config import ResolvedFigure  # noqa: E402
from ccbench.specification.metrics import phase_spans, timeline_samples  # noqa: E402

STYLE = {
    "font.family": "serif",
    "font.serif": ["Times New Roman", "Nimbus Roman", "Liberation Serif", "DejaVu Serif"],
    "font.size": 11,
    "axes.labelsize": 11,
    "legend.fontsize": 9,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "lines.linewidth": 1.4,
    "lines.markersize": 6,
    "axes.grid": True,
    "grid.linestyle": ":",
    "grid.alpha": 0.5,
    "pdf.fonttype": 42,   # embed TrueType, as publishers ask
    "savefig.dpi": 200,
}
MARKERS = ["o", "s", "^", "D", "v", "x", "+", "*", "P", "<", ">", "h"]
HATCHES = ["", "//", "\\\\", "xx", "..", "--", "++", "oo", "||", "**"]
COLORS = plt.get_cmap("tab10").colors
LINESTYLES = ["-", "--", ":", "-."]
PANEL_SIZE = (4.2, 3.1)


def _is_numeric(values: list) -> bool:
    return all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in values)


def _select(table: pd.DataFrame, context: dict) -> pd.DataFrame:
    mask = pd.Series(True, index=table.index)
    for axis, value in context.items():
        mask &= table[axis] == value
    return table[mask]


@dataclass(frozen=True)
class RunDocuments:
    """The runs behind a figure, for the plot kinds that draw one run rather than the medians
    (timeseries): the tidy runs table (tables.runs_table: series, axes, repetition, status, key)
    and the loader of a run's result document by its key."""
    runs: pd.DataFrame
    load: Callable[[str], dict | None]

    def first_ok(self, series: str, point: dict) -> dict | None:
        """The result of the series' successful run at the point (axis -> value) with the lowest
        repetition: repetitions differ in seed, and so in a seeded phase schedule."""
        rows = self.runs[(self.runs["series"] == series) & (self.runs["status"] == STATUS_OK)]
        for axis, value in point.items():
            rows = rows[rows[axis] == value]
        for key in rows.sort_values("repetition")["key"]:
            result = self.load(key)
            if result is not None:
                return result
        return None


class _FigureDrawer:
    def __init__(self, figure: ResolvedFigure, table: pd.DataFrame, plot: dict | None = None,
                 documents: RunDocuments | None = None):
        self.figure = figure
        self.table = table
        self.documents = documents
        self.plot = plot if plot is not None else figure.config.plot
        self.x = self.plot["x"]
        self.factor = self.plot.get("y_factor", 1.0)
        self.error_bars = self.plot.get("error_bars", True)
        self.series = figure.config.series
        self.styles = {s.name: (s.marker or MARKERS[i % len(MARKERS)], s.color or COLORS[i % len(COLORS)],
                                HATCHES[i % len(HATCHES)]) for i, s in enumerate(self.series)}

    def panels(self) -> list[dict]:
        """One panel per combination of the swept axes that are not on the x axis."""
        if self.plot["kind"] == "scatter" and self.x not in self.figure.axes:
            return [{}]
        others = {axis: values for axis, values in self.figure.axes.items()
                  if axis != self.x and len(values) > 1}
        return [dict(zip(others, combination)) for combination in itertools.product(*others.values())]

    def x_positions(self) -> tuple[list, list, bool]:
        """(x values in sweep order, their plotting positions, numeric?)."""
        values = list(self.figure.axes[self.x])
        if _is_numeric(values):
            values = sorted(values)
            return values, values, True
        return values, list(range(len(values))), False

    def _values(self, rows: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(median, [low, high] error extents) scaled by y_factor."""
        median = rows[metric].to_numpy(dtype=float) * self.factor
        low = rows[f"{metric}_min"].to_numpy(dtype=float) * self.factor
        high = rows[f"{metric}_max"].to_numpy(dtype=float) * self.factor
        return median, np.vstack([np.clip(median - low, 0, None), np.clip(high - median, 0, None)])

    def _rows_in_x_order(self, panel: pd.DataFrame, series: str) -> pd.DataFrame:
        rows = panel[panel["series"] == series]
        order, _, _ = self.x_positions()
        return rows.set_index(self.x).reindex(order).reset_index()

    def metric_labels(self) -> list[tuple[str, str]]:
        """(metric, its label) for each plotted metric."""
        metrics = self.plot["y"] if isinstance(self.plot["y"], list) else [self.plot["y"]]
        return list(zip(metrics, self.plot.get("y_labels", metrics)))

    def _pair_label(self, series, name: str) -> str:
        """A line's or bar's legend label: the series, the metric, or both when both vary."""
        several_metrics = isinstance(self.plot["y"], list) and len(self.plot["y"]) > 1
        if not several_metrics:
            return series.label
        return f"{series.label}: {name}" if len(self.series) > 1 else name

    def draw_line(self, ax, panel: pd.DataFrame) -> None:
        _, positions, numeric = self.x_positions()
        for series in self.series:
            rows = self._rows_in_x_order(panel, series.name)
            marker, color, _ = self.styles[series.name]
            for j, (metric, name) in enumerate(self.metric_labels()):
                median, extents = self._values(rows, metric)
                # a reference series (measured data, reference.py) dashed beside the solid lines of runs
                style = "--" if series.is_reference and len(self.metric_labels()) == 1 else LINESTYLES[j % len(LINESTYLES)]
                ax.plot(positions, median, marker=marker, color=color, label=self._pair_label(series, name),
                        linestyle=style,
                        markerfacecolor="white" if marker not in ("x", "+") else color)
                if self.error_bars and (rows["runs_ok"] > 1).any():
                    ax.errorbar(positions, median, yerr=extents, fmt="none", ecolor=color, capsize=2, linewidth=0.8)
        if "hline" in self.plot:
            level = panel[self.plot["hline"]["metric"]].median() * self.factor
            if np.isfinite(level):
                ax.axhline(level, color="black", linestyle=":", linewidth=1.2, label=self.plot["hline"]["label"])
        self._x_ticks(ax, numeric)

    def draw_timeseries(self, ax, panel: pd.DataFrame) -> None:
        """Per series, the first successful repetition's throughput in each whole second of the
        measured interval, drawn at the second's middle; the phase changes as dotted lines."""
        if self.documents is None:
            raise ValueError("a timeseries plot draws the runs themselves: pass their documents")
        phases = self.plot.get("phases")
        changes: dict[float, set[str]] = {}
        longest = 0
        for series in self.series:
            rows = panel[panel["series"] == series.name]
            if rows.empty:
                continue
            result = self.documents.first_ok(series.name, {axis: rows.iloc[0][axis] for axis in self.figure.axes})
            if result is None:
                continue
            samples = np.asarray(timeline_samples(result, self.plot["y"])) * self.factor
            longest = max(longest, len(samples))
            marker, color, _ = self.styles[series.name]
            face = "white" if marker not in ("x", "+") else color
            ax.plot(np.arange(len(samples)) + 0.5, samples, color=color, marker=marker, label=series.label,
                    markevery=max(1, len(samples) // 12), markerfacecolor=face)
            if phases:
                for start, _, value in phase_spans(result, phases["field"], phases.get("label", "")):
                    if start >= len(samples):
                        continue   # starts in the last, partial, second: nothing of it is drawn
                    text = "" if value is None else f"{phases.get('prefix', '')}{value}"
                    changes.setdefault(start, set()).add(text)
        for start, texts in sorted(changes.items()):
            if start > 0:
                ax.axvline(start, color="0.35", linestyle=":", linewidth=1.0)
            text = "/".join(sorted(t for t in texts if t))   # one text unless series logged different schedules
            if text:
                ax.text(start, 0.98, f" {text}", transform=ax.get_xaxis_transform(), ha="left", va="top", fontsize=7,
                        color="0.25")
        ax.set_xlim(0, max(longest, 1))

    def grouped_bar_slots(self) -> tuple[list[tuple[float, object, object, str, str]], list[float], list[str]]:
        """Bars as (position, x value or None, series, metric, label): a group per x value (per
        series when x is `series`), in it one bar per series and metric."""
        metrics = self.metric_labels()
        if self.x == "series":
            groups = [(None, [series]) for series in self.series]
            tick_labels = [series.label for series in self.series]
        else:
            values, _, _ = self.x_positions()
            groups = [(value, self.series) for value in values]
            tick_labels = [str(value) for value in values]
        slots = []
        for group, (x_value, members) in enumerate(groups):
            pairs = [(series, metric, name) for series in members for metric, name in metrics]
            width = 0.8 / len(pairs)
            for i, (series, metric, name) in enumerate(pairs):
                label = name if self.x == "series" else self._pair_label(series, name)
                slots.append((group + (i - (len(pairs) - 1) / 2) * width, x_value, series, metric, label))
        return slots, list(range(len(groups))), tick_labels

    def draw_grouped_bar(self, ax, panel: pd.DataFrame) -> None:
        slots, ticks, tick_labels = self.grouped_bar_slots()
        per_group = len(slots) // max(len(ticks), 1)
        width = 0.8 / max(per_group, 1)
        labels = list(dict.fromkeys(label for *_, label in slots))   # one colour and hatch per label
        labelled = set()
        for position, x_value, series, metric, label in slots:
            median, low, high = self._bar_value(panel, x_value, series, metric)
            j = labels.index(label)
            self._bar(ax, position, width, median, low, high, color=COLORS[j % len(COLORS)],
                      hatch=HATCHES[j % len(HATCHES)], label=label if label not in labelled else None)
            labelled.add(label)
        ax.set_xticks(ticks, tick_labels)
        ax.grid(axis="x", visible=False)

    def draw_scatter(self, ax, panel: pd.DataFrame) -> None:
        metric = self.plot["y"]
        for series in self.series:
            rows = panel[panel["series"] == series.name]
            marker, color, _ = self.styles[series.name]
            xs, ys = rows[self.x].to_numpy(dtype=float), rows[metric].to_numpy(dtype=float) * self.factor
            ax.scatter(xs, ys, marker=marker, color=color, label=series.label)
            if "label_points" in self.plot:
                for x, y, value in zip(xs, ys, rows[self.plot["label_points"]]):
                    if np.isfinite(x) and np.isfinite(y):
                        ax.annotate(str(value), (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7,
                                    color=color)

    def _bar_slots(self) -> tuple[list[tuple[float, object, object]], list[float], list[str]]:
        """Bars as (position, x value or None, series), with group tick positions and labels."""
        if self.x == "series":
            slots = [(float(i), None, s) for i, s in enumerate(self.series)]
            return slots, [p for p, _, _ in slots], [s.label for s in self.series]
        values, _, _ = self.x_positions()
        width = 0.8 / len(self.series)
        slots = [(group + (i - (len(self.series) - 1) / 2) * width, value, s)
                 for group, value in enumerate(values) for i, s in enumerate(self.series)]
        return slots, list(range(len(values))), [str(value) for value in values]

    def _bar_value(self, panel: pd.DataFrame, x_value, series, metric: str) -> tuple[float, float, float]:
        rows = panel[panel["series"] == series.name]
        if x_value is not None:
            rows = rows[rows[self.x] == x_value]
        if rows.empty:
            return np.nan, np.nan, np.nan
        row = rows.iloc[0]
        return tuple(float(row[column]) * self.factor for column in (metric, f"{metric}_min", f"{metric}_max"))

    def draw_bar(self, ax, panel: pd.DataFrame) -> None:
        metric = self.plot["y"]
        slots, ticks, tick_labels = self._bar_slots()
        width = 0.8 / (1 if self.x == "series" else len(self.series))
        labelled = set()
        for position, x_value, series in slots:
            median, low, high = self._bar_value(panel, x_value, series, metric)
            _, color, hatch = self.styles[series.name]
            label = series.label if series.name not in labelled and self.x != "series" else None
            labelled.add(series.name)
            self._bar(ax, position, width, median, low, high, color=color, hatch=hatch, label=label)
        ax.set_xticks(ticks, tick_labels)
        ax.grid(axis="x", visible=False)

    def _bar(self, ax, position: float, width: float, median: float, low: float, high: float, **style) -> None:
        """One bar at the median, with the repetitions' range as an error bar where there is one."""
        ax.bar(position, 0 if np.isnan(median) else median, width, edgecolor="black", linewidth=0.6, **style)
        if self.error_bars and not np.isnan(median) and high > low:
            ax.errorbar(position, median, yerr=[[median - low], [high - median]], fmt="none",
                        ecolor="black", capsize=2, linewidth=0.8)

    def draw_stacked_bar(self, ax, panel: pd.DataFrame) -> None:
        metrics = self.plot["y"] if isinstance(self.plot["y"], list) else [self.plot["y"]]
        names = self.plot.get("y_labels", metrics)
        slots, _, _ = self._bar_slots()
        width = 0.8 / (1 if self.x == "series" else len(self.series))
        bottoms = np.zeros(len(slots))
        for j, (metric, name) in enumerate(zip(metrics, names)):
            heights = np.array([self._bar_value(panel, x_value, series, metric)[0] for _, x_value, series in slots])
            heights = np.nan_to_num(heights)
            ax.bar([p for p, _, _ in slots], heights, width, bottom=bottoms, label=name,
                   color=COLORS[j % len(COLORS)], hatch=HATCHES[j % len(HATCHES)], edgecolor="black", linewidth=0.6)
            bottoms += heights
        several_series = len(self.series) > 1
        labels = [series.label if x_value is None else (f"{x_value}\n{series.label}" if several_series else str(x_value))
                  for _, x_value, series in slots]
        ax.set_xticks([p for p, _, _ in slots], labels, fontsize=8 if several_series else None)
        ax.grid(axis="x", visible=False)

    def table_cells(self, panel: pd.DataFrame) -> tuple[list[str], list[str], list[list[str]]]:
        """(row labels, column labels, cells): a row per metric (per series and metric when
        several series share the columns), a column per x value (or per series)."""
        metrics = self.plot["y"] if isinstance(self.plot["y"], list) else [self.plot["y"]]
        names = self.plot.get("y_labels", metrics)
        shown = [series for series in self.series if series.name in self.plot.get("shown_series", [series.name])]
        if self.x == "series":
            columns = [(None, series) for series in shown]
            column_labels = [series.label for series in shown]
            rows = [(name, None, metric) for name, metric in zip(names, metrics)]
        else:
            values, _, _ = self.x_positions()
            columns = [(value, None) for value in values]
            column_labels = [str(value) for value in values]
            several = len(shown) > 1
            rows = [(f"{series.label}: {name}" if several else name, series, metric)
                    for series in shown for name, metric in zip(names, metrics)]
        cells = [[_table_number(self._bar_value(panel, x_value, row_series or column_series, metric)[0])
                  for x_value, column_series in columns]
                 for _, row_series, metric in rows]
        return [label for label, _, _ in rows], column_labels, cells

    def draw_table(self, ax, panel: pd.DataFrame) -> None:
        row_labels, column_labels, cells = self.table_cells(panel)
        ax.axis("off")
        table = ax.table(cellText=cells, rowLabels=row_labels, colLabels=column_labels, loc="center",
                         cellLoc="center")
        table.auto_set_font_size(False)
        table.set_fontsize(9)
        table.scale(1, 1.5)
        if "xlabel" in self.plot:
            ax.set_title(self.plot["xlabel"], fontsize=10)

    def panel_size(self) -> tuple[float, float]:
        """Inches per panel: a table's width and height follow its columns and rows."""
        if self.plot["kind"] != "table":
            return PANEL_SIZE
        shown = len(self.plot.get("shown_series", self.series))
        columns = shown if self.x == "series" else len(self.figure.axes[self.x])
        metrics = len(self.plot["y"]) if isinstance(self.plot["y"], list) else 1
        rows = metrics * (1 if self.x == "series" else shown)
        return max(PANEL_SIZE[0], 0.75 * columns + 1.5), 0.3 * (rows + 1) + 0.4

    def _x_ticks(self, ax, numeric: bool) -> None:
        values, positions, _ = self.x_positions()
        if numeric and self.plot.get("xscale") == "log":
            _log_scale(ax.xaxis, ax.set_xscale)
        if len(values) <= 12:
            ax.set_xticks(positions, _readable_tick_labels(positions, values, numeric and
                                                           self.plot.get("xscale") == "log"))

    def label(self, ax) -> None:
        if self.plot["kind"] == "table":
            return
        y = self.plot["y"]
        default_y = y if isinstance(y, str) else "value"
        x_default = "" if self.x == "series" else self.x
        ax.set_xlabel(self.plot.get("xlabel", x_default))
        ax.set_ylabel(self.plot.get("ylabel", default_y))
        if self.plot.get("yscale") == "log":
            _log_scale(ax.yaxis, ax.set_yscale)
        if self.plot["kind"] == "scatter" and self.plot.get("xscale") == "log":
            _log_scale(ax.xaxis, ax.set_xscale)


def _table_number(value: float) -> str:
    if np.isnan(value):
        return "–"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}"


def _readable_tick_labels(positions: list, values: list, log: bool) -> list[str]:
    """A label per swept value. A label that would overlap the previous one on its line (e.g. θ = 0.99 after
    0.9) goes one line lower, so both ticks stay labelled; only where both lines are taken near it (three
    values within one label's width) is it left blank: the tick mark stays, the text does not."""
    coordinates = np.log10(positions) if log else np.asarray(positions, dtype=float)
    span = float(coordinates.max() - coordinates.min()) or 1.0
    labels = []
    last_on_line: list[tuple[float, int] | None] = [None, None]   # per text line: (coordinate, length) last shown
    for coordinate, value in zip(coordinates, values):
        text = str(value)
        for line, last in enumerate(last_on_line):
            # About 3% of a panel's width per character at the tick font size.
            if last is None or coordinate - last[0] >= 0.03 * span * (last[1] + len(text)) / 2:
                labels.append("\n" * line + text)
                last_on_line[line] = (coordinate, len(text))
                break
        else:
            labels.append("")
    return labels


def _log_scale(axis, set_scale) -> None:
    """Log scale with plain numbers (16, not 1.6×10¹), labelling minor ticks only on short ranges."""
    set_scale("log")
    axis.set_major_formatter(matplotlib.ticker.LogFormatter(labelOnlyBase=False))
    axis.set_minor_formatter(matplotlib.ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.4)))


def table_markdown(figure: ResolvedFigure, table: pd.DataFrame) -> list[str]:
    """A `table` figure's cells as Markdown lines (one table per panel), for the report."""
    drawer = _FigureDrawer(figure, table)
    lines = []
    for context in drawer.panels():
        row_labels, column_labels, cells = drawer.table_cells(_select(table, context))
        if context:
            lines += ["", "*" + ", ".join(f"{axis} = {value}" for axis, value in context.items()) + "*"]
        lines += ["", "| | " + " | ".join(column_labels) + " |", "|---" * (len(column_labels) + 1) + "|"]
        lines += [f"| {label} | " + " | ".join(row) + " |" for label, row in zip(row_labels, cells)]
    return lines


def suptitle(figure: ResolvedFigure, plot: dict) -> str | None:
    """The image's title: the plot's own, and for a simulated figure its caption (simulated, N virtual cores)."""
    caption = figure.simulation_caption()
    parts = [plot.get("title"), f"({caption})" if caption and "title" in plot else caption]
    return " ".join(part for part in parts if part) or None


def plot_figure(figure: ResolvedFigure, table: pd.DataFrame, image_base: Path,
                plot: dict | None = None, documents: RunDocuments | None = None) -> list[Path]:
    """Draw the figure (or one of its views, `plot`); write image_base.png and
    image_base.pdf; return their paths. `documents`: the runs, for a timeseries."""
    drawer = _FigureDrawer(figure, table, plot, documents)
    panels = drawer.panels()
    draw = getattr(drawer, f"draw_{drawer.plot['kind']}")
    with plt.rc_context(STYLE):
        width, height = drawer.panel_size()
        fig, grid = plt.subplots(1, len(panels), figsize=(width * len(panels), height), squeeze=False)
        for ax, context in zip(grid[0], panels):
            panel = _select(table, context)
            if (panel["runs_ok"] > 0).any():
                draw(ax, panel)
            else:
                ax.text(0.5, 0.5, "no successful runs", transform=ax.transAxes, ha="center", va="center")
            drawer.label(ax)
            if context:
                ax.set_title(", ".join(f"{axis} = {value}" for axis, value in context.items()), fontsize=10)
        legend = _legend(fig, grid[0], drawer.plot.get("legend", "top"))
        fig.tight_layout()
        title = suptitle(figure, drawer.plot)
        if title:
            _title(fig, title, legend if drawer.plot.get("legend", "top") == "top" else None)
        paths = []
        for extension in ("png", "pdf"):
            path = image_base.with_name(f"{image_base.name}.{extension}")  # a view's base is <id>.<view>
            write_atomically(path, lambda temp: fig.savefig(temp, format=extension, bbox_inches="tight"))
            paths.append(path)
        plt.close(fig)
    return paths


def _title(fig, title: str, top_legend) -> None:
    """The image's title above everything: wrapped to the figure's width (a long
    simulation caption would otherwise widen the saved image and shrink the
    plot to a strip), and above a top legend rather than over it."""
    bottom = 1.0
    if top_legend is not None:
        fig.canvas.draw()  # the legend's extent is known only once drawn
        bottom = top_legend.get_window_extent().transformed(fig.transFigure.inverted()).y1 + 0.01
    text = fig.suptitle(title, y=bottom, va="bottom")
    renderer = fig.canvas.get_renderer()
    characters_per_line = len(title)
    # Fonts differ between machines, so the wrap width is measured, not assumed.
    while text.get_window_extent(renderer).width > fig.bbox.width and characters_per_line > 20:
        characters_per_line = int(characters_per_line * 0.85)
        text.set_text(textwrap.fill(title, characters_per_line))


def _legend(fig, axes, position: str):
    """The figure's legend (None when it has none), at the top or to the right."""
    handles, labels = {}, []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = handle
                labels.append(label)
    if position == "none" or not labels:
        return None
    if position == "top":
        return fig.legend([handles[label] for label in labels], labels, loc="lower center",
                          bbox_to_anchor=(0.5, 1.0), ncol=min(len(labels), 4), frameon=False)
    return fig.legend([handles[label] for label in labels], labels, loc="center left", bbox_to_anchor=(1.0, 0.5),
                      frameon=False)
