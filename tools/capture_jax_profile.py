#!/usr/bin/env python3
"""Capture a JAX/XLA profile that `allocsim xla-check` and `allocsim run` can replay.

The allocator's whole history must be in the profile, so the profiler has to start before the
program creates its first array; this wrapper starts it, runs the user's program as __main__,
waits for every live array, stops the profiler and writes the `*.xplane.pb` gzipped to --out.

    python3 tools/capture_jax_profile.py --out my.xplane.pb.gz my_program.py [ARGS...]
    python3 tools/capture_jax_profile.py --growing-pool --out grow.xplane.pb.gz my_program.py

Options that change XLA's GPU client are set in the environment before jax is imported (they are
read once, at client creation): --growing-pool sets XLA_PYTHON_CLIENT_PREALLOCATE=false (the BFC
pool grows region by region instead of taking 75 % of the device at the first allocation),
--mem-fraction sets XLA_PYTHON_CLIENT_MEM_FRACTION.
"""
import argparse
import glob
import gzip
import os
import runpy
import shutil
import sys
import tempfile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="where to write the gzipped .xplane.pb")
    parser.add_argument("--growing-pool", action="store_true",
                        help="XLA_PYTHON_CLIENT_PREALLOCATE=false: a BFC pool that grows")
    parser.add_argument("--mem-fraction", type=float, help="XLA_PYTHON_CLIENT_MEM_FRACTION")
    parser.add_argument("program", help="the JAX program (a .py file), run as __main__")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    a = parser.parse_args()
    if not os.path.isfile(a.program):
        parser.error(f"{a.program}: no such file")
    if a.growing_pool:
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    if a.mem_fraction is not None:
        if not 0 < a.mem_fraction <= 1:
            parser.error("--mem-fraction must be in (0, 1]")
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = str(a.mem_fraction)

    import jax  # after the environment: the GPU client reads it when it is created

    trace_dir = tempfile.mkdtemp(prefix="allocsim_profile_")
    try:
        jax.profiler.start_trace(trace_dir)  # before any array exists
        sys.argv = [a.program] + a.args
        try:
            runpy.run_path(a.program, run_name="__main__")
        finally:
            # Wait for all device work the program left queued, so its frees reach the profile.
            for array in jax.live_arrays():
                array.block_until_ready()
            jax.profiler.stop_trace()
        found = glob.glob(os.path.join(trace_dir, "plugins", "profile", "*", "*.xplane.pb"))
        if len(found) != 1:
            print(f"capture: expected one .xplane.pb under {trace_dir}, found {len(found)}", file=sys.stderr)
            return 1
        tmp = a.out + ".partial"  # written whole or not at all
        with open(found[0], "rb") as src, gzip.open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(tmp, a.out)
        print(f"capture: {a.out} ({os.path.getsize(a.out)} bytes)")
        return 0
    finally:
        shutil.rmtree(trace_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
