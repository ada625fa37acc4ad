"""Draws the benchmark results in Benchmarks/results/*.csv as SVG line charts, next to them.

    python3 Benchmarks/plot.py            # every chart whose CSV is there

No plotting library: the charts are plain SVG (axes, log-scaled where a size grows tenfold,
one line per series, a legend, the machine in a note), so that a reader of the repository
sees how each cost grows. The CSVs are written by Benchmarks/curves.sh and by
`postgres-diary-benchmark curve`; a line starting with # is a note, drawn under the chart.
"""
import csv
import math
import os
import sys
import textwrap

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 80, 180, 50, 70


def read(name):
    """Rows (dicts) and notes of results/NAME."""
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        return None, []
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    notes = [line[1:].strip() for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return rows, notes


def ticks(low, high, log):
    if log:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        return [10 ** power for power in range(first, last + 1)]
    # The first of 1, 2, 5 × 10^k that gives at most six steps.
    power = 10 ** math.floor(math.log10(max(high - low, 1e-9)) - 1)
    step = next(power * factor for factor in (1, 2, 5, 10, 20, 50, 100)
                if (high - low) / (power * factor) <= 6)
    start = math.floor(low / step) * step
    count = math.ceil((high - start) / step)
    return [start + index * step for index in range(count + 1)]


def label(value):
    if value >= 1_000_000 and value % 1_000_000 == 0:
        return f"{value // 1_000_000:g}M"
    if value >= 10_000 and value % 1000 == 0:
        return f"{value // 1000:g}k"
    return f"{value:g}"


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart(path, title, x_title, y_title, series, log_x=False, log_y=False, notes=()):
    """series: [(name, [(x, y)…])]. Writes an SVG to path."""
    notes = [line for note in notes for line in textwrap.wrap(note, 95)]
    points = [point for _, line in series for point in line]
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x_ticks = ticks(min(xs), max(xs), log_x)
    if all(x == int(x) for x in xs):  # counts (--jobs): whole ticks only
        x_ticks = [x for x in x_ticks if x == int(x)]
    y_ticks = ticks(min(ys) if log_y else 0, max(ys) * 1.05, log_y)
    x_low, x_high = x_ticks[0], x_ticks[-1]
    y_low, y_high = y_ticks[0], y_ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x):
        if log_x:
            return LEFT + plot_w * (math.log10(x) - math.log10(x_low)) / (
                math.log10(x_high) - math.log10(x_low))
        return LEFT + plot_w * (x - x_low) / (x_high - x_low)

    def sy(y):
        if log_y:
            return TOP + plot_h * (1 - (math.log10(y) - math.log10(y_low)) / (
                math.log10(y_high) - math.log10(y_low)))
        return TOP + plot_h * (1 - (y - y_low) / (y_high - y_low))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
           f'height="{HEIGHT + 16 * len(notes)}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="24" text-anchor="middle" font-size="15">'
           f'{escape(title)}</text>']
    for x in x_ticks:
        out.append(f'<line x1="{sx(x):.1f}" y1="{TOP}" x2="{sx(x):.1f}" y2="{TOP + plot_h}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{sx(x):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">'
                   f'{label(x)}</text>')
    for y in y_ticks:
        out.append(f'<line x1="{LEFT}" y1="{sy(y):.1f}" x2="{LEFT + plot_w}" y2="{sy(y):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">'
                   f'{label(y)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
               'stroke="#444"/>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{TOP + plot_h + 40}" text-anchor="middle">'
               f'{escape(x_title)}</text>')
    out.append(f'<text transform="translate(18 {TOP + plot_h / 2}) rotate(-90)" '
               f'text-anchor="middle">{escape(y_title)}</text>')
    for index, (name, line) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        path_data = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in sorted(line))
        out.append(f'<polyline points="{path_data}" fill="none" stroke="{colour}" '
                   'stroke-width="2"/>')
        for x, y in line:
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{colour}">'
                       f'<title>{escape(name)}: {y:g} at {label(x)}</title></circle>')
        legend_y = TOP + 10 + 18 * index
        out.append(f'<line x1="{LEFT + plot_w + 12}" y1="{legend_y}" x2="{LEFT + plot_w + 32}" '
                   f'y2="{legend_y}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{LEFT + plot_w + 36}" y="{legend_y + 4}">{escape(name)}</text>')
    for index, note in enumerate(notes):
        out.append(f'<text x="{LEFT}" y="{HEIGHT - 12 + 16 * index}" font-size="11" '
                   f'fill="#555">{escape(note)}</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(out) + "\n")
    print(f"wrote {os.path.relpath(path)}")


def grouped(rows, key, x_field, y):
    """[(name, [(x, y)])] by the value of `key`, y computed from a row."""
    series = {}
    for row in rows:
        series.setdefault(row[key], []).append((float(row[x_field]), y(row)))
    return list(series.items())


def main():
    drawn = 0
    rows, notes = read("convert-size.csv")
    if rows:
        chart(os.path.join(RESULTS, "convert-size.svg"),
              "Conversion throughput against input size (one core)", "records",
              "records per second",
              grouped(rows, "series", "records",
                      lambda row: float(row["records"]) / float(row["seconds"])),
              log_x=True, notes=notes)
        drawn += 1
    rows, notes = read("convert-jobs.csv")
    if rows:
        chart(os.path.join(RESULTS, "convert-jobs.svg"),
              "Conversion throughput against --jobs", "--jobs", "records per second",
              grouped(rows, "series", "jobs",
                      lambda row: float(row["records"]) / float(row["seconds"])),
              notes=notes)
        drawn += 1
    rows, notes = read("postgres-curve.csv")
    if rows:
        series = [(name, [(float(row["entries"]), float(row[field])) for row in rows])
                  for name, field in [("add", "add_us"), ("refused add", "refused_us"),
                                      ("read by id", "read_us")]]
        chart(os.path.join(RESULTS, "postgres-curve.svg"),
              "Team diary (PostgreSQL): latency against diary size", "entries in the diary",
              "microseconds per operation", series, log_x=True, notes=notes)
        drawn += 1
    if drawn == 0:
        sys.exit(f"plot.py: no results in {RESULTS} (run Benchmarks/curves.sh first)")


if __name__ == "__main__":
    main()
