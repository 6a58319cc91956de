#!/usr/bin/env python3
"""Whole-process CPU time, wall time and minor page faults of several commands, launched in
turn inside every repetition (paired, alternating, as the `compile_speed` bench does), so
that load from elsewhere on the machine hits them alike. Prints one markdown row per
command with the medians; docs/PERFORMANCE.md's compile-speed figures that compare two
cajetac binaries with naga in one run come from it.

    scripts/paired_launches.py REPS CMD [';;' CMD ...]

Each CMD is split on spaces; leading NAME=value words set its environment; `{n}` in a word
is replaced by the repetition's number (a fresh output folder per launch). Every command
is started with posix_spawn (no copy of this process's pages is charged to the child) with
its output sent to /dev/null, and timed by wait4: CPU is the child's user + system time.
A command that fails stops the run.

Example (the binaries and the inputs of the bench, compiler/benches/gen.rs):

    scripts/paired_launches.py 21 ./before build many.cajeta -o out ';;' \\
        ./after build many.cajeta -o out ';;' naga many.wgsl n.spv
"""

import os
import statistics
import sys
import time


def main() -> None:
    reps = int(sys.argv[1])
    commands = [c.split() for c in " ".join(sys.argv[2:]).split(";;")]
    samples = [[] for _ in commands]
    quiet = [
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0),
    ]
    for rep in range(reps):
        for command, taken in zip(commands, samples):
            env = dict(os.environ)
            args = [a.replace("{n}", str(rep)) for a in command]
            while "=" in args[0]:
                name, value = args.pop(0).split("=", 1)
                env[name] = value
            start = time.perf_counter()
            pid = os.posix_spawn(args[0], args, env, file_actions=quiet)
            _, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - start
            if status != 0:
                sys.exit(f"`{' '.join(args)}` failed (status {status})")
            cpu = usage.ru_utime + usage.ru_stime
            taken.append((cpu * 1e3, wall * 1e3, usage.ru_minflt))
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("| command | CPU | wall | faults |")
    print("|---|---:|---:|---:|")
    for command, taken in zip(commands, samples):
        cpu, wall, faults = (statistics.median(x[k] for x in taken) for k in range(3))
        print(f"| `{' '.join(command)}` | {cpu:.2f} ms | {wall:.2f} ms | {faults:.0f} |")


if __name__ == "__main__":
    main()
