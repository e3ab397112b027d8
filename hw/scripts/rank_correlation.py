"""Spearman's rank correlation, shared by the hw/scripts analyses.

Written here because Python 3.11's statistics (Debian 12) has no ranked correlation (3.12 adds
method="ranked") and the analyses need nothing else from SciPy.
"""
import statistics


def ranks(values):
    """Each value's rank from 1 (ties: their mean rank)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def rank_correlation(xs, ys):
    """Spearman's: Pearson's of the ranks (statistics.correlation; Python 3.11 has no ranked method),
    0 when either side has no spread."""
    rx, ry = ranks(xs), ranks(ys)
    return statistics.correlation(rx, ry) if len(set(rx)) > 1 and len(set(ry)) > 1 else 0.0
