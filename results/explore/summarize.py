#!/usr/bin/env python3
"""Writes results/explore/README.md's table from the explorations' JSON files (scripts/explore_results.sh).

Every figure in the table is read from a JSON file here; tests/explore/test_committed_explore.cpp
checks each row against its file. Standard library only."""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
BEGIN, END = "<!-- table: summarize.py -->", "<!-- /table -->"


def row(path):
    d = json.loads(path.read_text())
    levels = " / ".join(str(l["schedules"]) for l in d["levels"])
    up_to_2 = sum(l["schedules"] for l in d["levels"] if l["delays"] <= 2)
    ratio = d["plain_estimate"] / d["schedules"] if d["schedules"] else 0
    return (f"| `{path.stem}` | {d['scenario']} | {d['policy']} | {d['guard']} | {d['bound']} | {levels} | "
            f"{d['schedules']} | {up_to_2} | {d['plain_estimate']:.3g} | {ratio:.3g} | {d['verdict']} |")


def table(folder):
    rows = [row(p) for p in sorted(folder.glob("*.json")) if not p.name.startswith("witness")]
    head = ("| exploration | scenario | policy | guard | bound | schedules per level | schedules | of them with ≤ 2 delays "
            "| plain enumeration (estimate) | plain / explored | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


def main():
    """summarize.py [FOLDER]: the table of FOLDER's JSON files (default: this folder) into this README."""
    folder = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    readme = HERE / "README.md"
    text = readme.read_text()
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    readme.write_text(text[:a] + "\n" + table(folder) + "\n" + text[b:])


if __name__ == "__main__":
    sys.exit(main())
