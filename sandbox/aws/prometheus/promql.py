"""The PromQL the sandbox's AMP workspaces answer: the queries Launchpod issues (launchpod.domain.metrics),
no more. Grammar (Prometheus "Querying basics", "Operators", "Functions",
https://prometheus.io/docs/prometheus/latest/querying/):

    expr     := primary [ ("<" | ">") number | "*" number ]    a comparison with a scalar filters samples;
                                                                a product scales them (vector * scalar)
    primary  := agg [ "by" "(" labels ")" ] "(" expr ")" [ "by" "(" labels ")" ]
              | "rate" "(" selector "[" duration "]" ")"
              | "histogram_quantile" "(" number "," expr ")"
              | selector
    agg      := sum | avg | max | min | count
    selector := metric [ "{" label ("=" | "!=" | "=~") "string" , ... "}" ]

Semantics as Prometheus evaluates them at each step of a range query: an instant selector reads the last
sample at or before the step (the series' change points, sandbox.aws.prometheus.tsdb; a stale marker ends
it); ``rate`` is (v(t) - v(t - range)) / range without Prometheus' extrapolation to the window's edges;
aggregations drop ``__name__`` and keep the ``by`` labels; ``histogram_quantile`` interpolates linearly
inside the bucket the rank falls in, and answers the upper bound of the highest finite bucket when it falls
in +Inf. Anything else is a 400 ``bad_data``, as Prometheus answers a query it cannot parse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.aws.prometheus.tsdb import Series

Vector = list[tuple[dict[str, str], list[float | None]]]
_TOKEN = re.compile(
    r'\s*(?:(?P<num>\d+(?:\.\d+)?)(?P<unit>ms|s|m|h|d)?|(?P<id>[A-Za-z_:][\w:]*)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<op>=~|!=|[(){}\[\],=<>*]))'
)
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
AGGREGATIONS = ("sum", "avg", "max", "min", "count")


class BadQuery(ValueError):
    """The query is outside the subset (Prometheus: 400 bad_data)."""


@dataclass(frozen=True)
class Grid:
    start: float
    step: float
    count: int


def _tokens(query: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(query.rstrip()):
        m = _TOKEN.match(query, pos)
        if m is None or m.end() == pos:
            raise BadQuery(f"parse error at char {pos + 1}: unexpected character {query[pos]!r}")
        kind = next(k for k in ("num", "id", "str", "op") if m.group(k) is not None)
        value = m.group(kind)
        if kind == "num" and m.group("unit"):
            kind, value = "dur", str(float(value) * _UNITS[m.group("unit")])
        out.append((kind, value))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, query: str, read: Callable[[str], list[Series]], grid: Grid) -> None:
        self.tokens, self.pos, self.read, self.grid = _tokens(query), 0, read, grid

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        found = self.peek()
        if (value is not None and found[1] != value) or (kind is not None and found[0] != kind) or found[0] == "end":
            raise BadQuery(f"parse error: expected {value or kind}, found {found[1] or 'end of input'!r}")
        self.pos += 1
        return found[1]

    def parse(self) -> Vector:
        out = self.expr()
        if self.peek()[0] != "end":
            raise BadQuery(f"parse error: unexpected {self.peek()[1]!r}")
        return out

    def expr(self) -> Vector:
        out = self.primary()
        if self.peek()[1] == "*":
            self.take("*")
            factor = float(self.take(kind="num"))
            return [(labels, [None if v is None else v * factor for v in values]) for labels, values in out]
        if self.peek()[1] in ("<", ">"):
            op = self.take()
            bound = float(self.take(kind="num"))
            below = op == "<"
            out = [
                (labels, [v if v is not None and ((v < bound) if below else (v > bound)) else None for v in values])
                for labels, values in out
            ]
        return out

    def labels(self) -> list[str]:
        self.take("by")
        self.take("(")
        names = [self.take(kind="id")]
        while self.peek()[1] == ",":
            self.take(",")
            names.append(self.take(kind="id"))
        self.take(")")
        return names

    def primary(self) -> Vector:
        kind, word = self.peek()
        if kind != "id":
            raise BadQuery(f"parse error: unexpected {word or 'end of input'!r}")
        if word in AGGREGATIONS:
            self.take()
            by = self.labels() if self.peek()[1] == "by" else None
            self.take("(")
            inner = self.expr()
            self.take(")")
            if by is None and self.peek()[1] == "by":
                by = self.labels()
            return aggregate(word, by or [], inner)
        if word == "rate":
            self.take()
            self.take("(")
            series = self.selector()
            self.take("[")
            window = float(self.take(kind="dur"))
            self.take("]")
            self.take(")")
            return [(_without_name(s.labels), rate(s, self.grid, window)) for s in series]
        if word == "histogram_quantile":
            self.take()
            self.take("(")
            phi = float(self.take(kind="num"))
            self.take(",")
            inner = self.expr()
            self.take(")")
            return histogram_quantile(phi, inner)
        return [(dict(s.labels), s.on_grid(self.grid.start, self.grid.step, self.grid.count)) for s in self.selector()]

    def selector(self) -> list[Series]:
        name = self.take(kind="id")
        tests: list[Callable[[dict[str, str]], bool]] = []
        if self.peek()[1] == "{":
            self.take("{")
            while self.peek()[1] != "}":
                label, op = self.take(kind="id"), self.take()
                value = self.take(kind="str")[1:-1].encode().decode("unicode_escape")
                tests.append(_matcher(label, op, value))
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("}")
        return [s for s in self.read(name) if all(test(s.labels) for test in tests)]


def _matcher(label: str, op: str, value: str) -> Callable[[dict[str, str]], bool]:
    if op == "=":
        return lambda labels: labels.get(label, "") == value
    if op == "!=":
        return lambda labels: labels.get(label, "") != value
    if op == "=~":
        pattern = re.compile(f"^(?:{value})$")  # RE2 anchored, as Prometheus matches
        return lambda labels: pattern.match(labels.get(label, "")) is not None
    raise BadQuery(f"parse error: unexpected {op!r} in a label matcher")


def _without_name(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k != "__name__"}


def rate(series: Series, grid: Grid, window: float) -> list[float | None]:
    now = series.on_grid(grid.start, grid.step, grid.count)
    before = series.on_grid(grid.start - window, grid.step, grid.count, baseline=0.0)
    first = series.times[0] if series.times else math.inf
    out: list[float | None] = []
    for i, (a, b) in enumerate(zip(now, before, strict=True)):
        if a is None or grid.start + i * grid.step < first:
            out.append(None)
        else:
            out.append(max(0.0, a - (b or 0.0)) / window)
    return out


def _reduce(op: str, column: list[float]) -> float:
    if op == "sum":
        return math.fsum(column)
    if op == "avg":
        return math.fsum(column) / len(column)
    if op == "max":
        return max(column)
    if op == "min":
        return min(column)
    return float(len(column))


def aggregate(op: str, by: list[str], vector: Vector) -> Vector:
    groups: dict[tuple[str, ...], list[list[float | None]]] = {}
    for labels, series in vector:
        groups.setdefault(tuple(labels.get(k, "") for k in by), []).append(series)
    out: Vector = []
    fast = {"max": max, "min": min}
    for key, rows in groups.items():
        values: list[float | None]
        if op in fast:
            # one C-level pass over the instants; a missing sample (None) loses to every present one
            void = -math.inf if op == "max" else math.inf
            filled = [row if None not in row else [void if v is None else v for v in row] for row in rows]
            values = [None if v == void else v for v in map(fast[op], *filled)]
        elif op in ("sum", "avg") and not any(None in row for row in rows):
            totals = list(map(sum, zip(*rows, strict=True)))
            values = list(totals) if op == "sum" else [t / len(rows) for t in totals]
        else:
            values = []
            for column in zip(*rows, strict=True):
                present = [v for v in column if v is not None]
                values.append(_reduce(op, present) if present else None)
        out.append(({k: v for k, v in zip(by, key, strict=True) if v}, values))
    return out


def _quantile(phi: float, buckets: list[tuple[float, float]]) -> float | None:
    buckets.sort()
    if not buckets or buckets[-1][0] != math.inf or buckets[-1][1] <= 0:
        return None
    rank = phi * buckets[-1][1]
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == math.inf:
                return lower_bound
            if count == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (count - lower_count)
        lower_bound, lower_count = bound, count
    return None


def histogram_quantile(phi: float, vector: Vector) -> Vector:
    groups: dict[tuple[tuple[str, str], ...], list[tuple[float, list[float | None]]]] = {}
    for labels, values in vector:
        rest = tuple(sorted((k, v) for k, v in labels.items() if k not in ("le", "__name__")))
        groups.setdefault(rest, []).append((float(labels.get("le", "+Inf").replace("+Inf", "inf")), values))
    out: Vector = []
    for rest, rows in groups.items():
        count = len(rows[0][1])
        quantiles = [
            _quantile(phi, [(bound, v) for bound, vals in rows if (v := vals[i]) is not None]) for i in range(count)
        ]
        out.append((dict(rest), quantiles))
    return out


def evaluate(query: str, read: Callable[[str], list[Series]], grid: Grid) -> Vector:
    """``query`` at each instant of ``grid``: a list of (labels, value per instant or None)."""
    return _Parser(query, read, grid).parse()
