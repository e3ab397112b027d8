#!/usr/bin/env python3
"""Copies computed headlines into README.md between their markers.

Each headline file is written by the code that computes it from committed results
(results/conv-autotune/headline.md by `allocsim report`, results/jax/headline.md by
results/jax/summarize.py, results/hw/h200-handover-split/headline.md by hw/scripts/validation_headline.py);
README quotes them verbatim, and tests (tests/sweep/test_report.cpp,
tests/xla/test_committed_results.cpp, tests/hw/timeline_analysis_test.cpp) fail when a quote differs
from its file.
Usage: scripts/quote_headline.py [HEADLINE_FILE...]   (default: all three)"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = root / "README.md"
files = sys.argv[1:] or ["results/conv-autotune/headline.md", "results/jax/headline.md",
                         "results/hw/h200-handover-split/headline.md"]
text = readme.read_text()
for name in files:
    headline = (root / name).read_text()
    open_marker, close_marker = f"<!-- headline: {name} -->\n", "<!-- /headline -->"
    begin = text.find(open_marker)
    end = text.find(close_marker, begin)
    if begin < 0 or end < 0:
        sys.exit(f"quote_headline: README.md has no markers for {name}")
    text = text[: begin + len(open_marker)] + headline + text[end:]
tmp = readme.with_suffix(".md.partial")
tmp.write_text(text)
tmp.replace(readme)
