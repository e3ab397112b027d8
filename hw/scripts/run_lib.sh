# Sourced by the hw/scripts/h200_*.sh runs, from the repo root on the device machine, after NAME
# (the results folder the run becomes) is set: the binary B and its libraries from .hwcarry/
# (hw/README.md), the output folder O=$OUT/$NAME, device.txt (the GPU and host), and run(), which
# writes each command's exact line to commands.txt (the folder named as it is committed,
# results/hw/$NAME) and its output, exit status and time to log.txt.
B=.hwcarry/allocsim-hw
export LD_LIBRARY_PATH=$PWD/.hwcarry/lib
O=${OUT:-/tmp}/$NAME
mkdir -p "$O"
{ nvidia-smi -q | head -60; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv;
  echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo)"; uname -sr; } > "$O/device.txt" 2>&1
run() { echo "$*" | sed "s#$O#results/hw/$NAME#g" >> "$O/commands.txt"; echo "+ $*" >> "$O/log.txt";
        local t0=$(date +%s%N); "$@" >> "$O/log.txt" 2>&1; local rc=$?;
        echo "rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$O/log.txt"; }
