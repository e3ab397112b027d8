#!/usr/bin/env python3
"""Convert a PyTorch memory snapshot pickle to the JSON that `allocsim run` replays.

`torch.cuda.memory._dump_snapshot(path)` writes a pickle of plain dicts/lists (device_traces,
segments, ...), so no torch import is needed to read it: this script uses the standard library
only. Output is gzip when the output name ends in .gz. Optional --metadata KEY=VALUE pairs are
stored under "metadata" (allocsim reads max_memory_allocated / max_memory_reserved from there and
reports them next to each policy's peak).

  python3 tools/torch_snapshot_to_json.py snapshot.pickle trace.json.gz \
      --metadata max_memory_allocated=2761556480 --metadata max_memory_reserved=2984247296

The output file is written whole or not at all (temporary file, then rename).
"""
import argparse
import gzip
import json
import os
import pickle
import sys
import tempfile


class _SafeUnpickler(pickle.Unpickler):
    """Snapshots contain only builtin containers and scalars: refuse anything that needs a class."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"snapshot refers to {module}.{name}; only plain data is allowed")


def _plain(value):
    """JSON-safe copy: bytes -> str, tuples -> lists, non-string keys -> str."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value


def _parse_metadata(pairs):
    meta = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--metadata expects KEY=VALUE, got {pair!r}")
        try:
            meta[key] = int(raw)
        except ValueError:
            try:
                meta[key] = float(raw)
            except ValueError:
                meta[key] = raw
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot", help="pickle written by torch.cuda.memory._dump_snapshot")
    ap.add_argument("output", help="JSON output (.json, or .json.gz for gzip)")
    ap.add_argument("--metadata", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)

    opener = gzip.open if args.snapshot.endswith(".gz") else open
    try:
        with opener(args.snapshot, "rb") as f:
            snap = _SafeUnpickler(f).load()
    except (OSError, pickle.UnpicklingError, EOFError) as e:
        print(f"{args.snapshot}: cannot read snapshot: {e}", file=sys.stderr)
        return 2
    if not isinstance(snap, dict) or "device_traces" not in snap:
        print(f"{args.snapshot}: not a memory snapshot (no device_traces)", file=sys.stderr)
        return 2
    out = {"device_traces": _plain(snap["device_traces"]), "segments": _plain(snap.get("segments", []))}
    meta = _plain(snap.get("metadata", {})) if isinstance(snap.get("metadata"), dict) else {}
    meta.update(_parse_metadata(args.metadata))
    if meta:
        out["metadata"] = meta

    data = json.dumps(out, separators=(",", ":")).encode()
    directory = os.path.dirname(os.path.abspath(args.output))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as f:
            if args.output.endswith(".gz"):
                with gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as gz:
                    gz.write(data)
            else:
                f.write(data)
        os.replace(tmp, args.output)
    except BaseException:
        os.unlink(tmp)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
