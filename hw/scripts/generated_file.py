"""A generated analysis file, written or checked: the one rule every hw/scripts analysis follows.

With check, the file must already hold exactly `text` (exit status 1 and a message otherwise), which
is how tests/hw keeps each committed analysis what its data says; without, it is written.
"""
import sys
from pathlib import Path


def write_or_check(out, text, check):
    out = Path(out)
    if check:
        same = out.exists() and out.read_text() == text
        if not same:
            print(f"{out} differs from what its data gives: rerun without --check", file=sys.stderr)
        return 0 if same else 1
    out.write_text(text)
    return 0
