#!/usr/bin/python3
"""SNIA PTS 2.0's steady-state rule written apart from src/pts.h, in exact
rational arithmetic, over generated series; tests/unit/pts.cpp runs it and
holds pts_test() to the same verdict, window and left round for each.

usage: pts_reference.py COUNT SEED
prints a line per series: its rounds, then "|", then the first steady
window's first and last round and the first later round outside +-20% of
its average (1-based; "-" for none).

The values are whole numbers up to 10^6 or 10^9, or have three decimals:
any series that misses a limit misses it by at least 10^-8 of the limit,
well beyond src/pts.h's allowance for rounding (10^-9)."""
import random
import sys
from fractions import Fraction

FIFTH, TENTH = Fraction(1, 5), Fraction(1, 10)


def steady(window):
    n = len(window)
    avg = sum(window) / n
    spread = max(window) - min(window)
    xm = Fraction(n - 1, 2)
    slope = (sum((i - xm) * (y - avg) for i, y in enumerate(window))
             / sum((i - xm) ** 2 for i in range(n)))
    excursion = abs(slope) * (n - 1)
    return avg > 0 and spread <= FIFTH * avg and excursion <= TENTH * avg, avg


def verdict(series):
    for last in range(4, len(series)):
        ok, avg = steady(series[last - 4:last + 1])
        if ok:
            left = next((i for i in range(last + 1, len(series))
                         if abs(series[i] - avg) > FIFTH * avg), None)
            return last - 3, last + 1, None if left is None else left + 1
    return None, None, None


def boundary(rng, level):
    """Five rounds at a limit, or one unit past it."""
    past = rng.choice((0, 1))
    kind = rng.choice(("range", "slope", "drift", "zigzag", "flat"))
    if kind == "range":     # range exactly 20% of the average (+1: just over)
        r = level // 5
        w = [level - r // 2, level + r - r // 2, level, level, level]
        w[1] += past
    elif kind == "slope":   # excursion exactly 10%: a line of avg/40 a round
        k = level // 40
        w = [level + k * (x - 2) + (past if x == 4 else 0) for x in range(5)]
    elif kind == "drift":   # range within 20%, excursion past 10%
        k = level // 40 + rng.randint(1, level // 40)
        w = [level + k * (x - 2) for x in range(5)]
    elif kind == "zigzag":  # slope 0, range past 20%
        d = level // 10 + rng.randint(1, level // 10)
        w = [level - d, level + d, level - d, level + d, level - d]
    else:
        w = [level] * 5
    return [Fraction(v) for v in w]


def series_of(rng):
    n = rng.randint(5, 30)
    kind = rng.choice(("noise", "ramp", "step", "boundary", "decimal", "large"))
    level = rng.choice((40 * rng.randint(25, 25000), 1000))
    if kind == "noise":
        amp = rng.choice((0.01, 0.05, 0.1, 0.15, 0.3))
        return [Fraction(max(1, round(level * (1 + rng.uniform(-amp, amp))))) for _ in range(n)]
    if kind == "ramp":      # an SLC cache that runs out: fast, then falling, then flat
        start = rng.randint(2, 8)
        return [Fraction(round(level * (2.0 if i < start else 1 + max(0, 1 - (i - start) / 3))
                               * (1 + rng.uniform(-0.04, 0.04)))) for i in range(n)]
    if kind == "step":      # steady, then a step up or down later
        at = rng.randint(5, n)
        factor = rng.choice((0.5, 0.79, 0.81, 1.19, 1.21, 1.5))
        return [Fraction(round(level * (1 if i < at else factor) * (1 + rng.uniform(-0.02, 0.02))))
                for i in range(n)]
    if kind == "decimal":
        return [Fraction(rng.randint(800000, 1000000), 1000) for _ in range(n)]
    if kind == "large":     # bytes per second: whole numbers up to 10^9
        base = rng.randint(10 ** 8, 10 ** 9)
        return [Fraction(base + rng.randint(-base // 8, base // 8)) for _ in range(n)]
    head = [Fraction(rng.randint(1, 3 * level)) for _ in range(rng.randint(0, 5))]
    return head + boundary(rng, level * rng.choice((1, 10 ** 3)))


def text(v):
    return str(v.numerator) if v.denominator == 1 else "%.3f" % float(v)


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        s = series_of(rng)
        first, last, left = verdict(s)
        out.append(" ".join(map(text, s)) + " | " +
                   " ".join("-" if v is None else str(v) for v in (first, last, left)))
    sys.stdout.write("\n".join(out) + "\n")


main()
