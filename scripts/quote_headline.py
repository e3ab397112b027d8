#!/usr/bin/env python3
"""Copies results/conv-autotune/headline.md into README.md between its headline markers.

scripts/flagship.sh runs it after the sweep, so the README's verdict is always the one computed
from the committed results (tests/sweep/test_report.cpp checks that they agree)."""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = root / "README.md"
headline = (root / "results" / "conv-autotune" / "headline.md").read_text()
text = readme.read_text()
open_marker, close_marker = "<!-- headline: results/conv-autotune/headline.md -->\n", "<!-- /headline -->"
begin, end = text.find(open_marker), text.find(close_marker)
if begin < 0 or end < begin:
    sys.exit("quote_headline: README.md has no headline markers")
text = text[: begin + len(open_marker)] + headline + text[end:]
tmp = readme.with_suffix(".md.partial")
tmp.write_text(text)
tmp.replace(readme)
