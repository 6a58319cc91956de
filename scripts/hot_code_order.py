#!/usr/bin/env python3
"""Writes compiler/link/cajetac-hot-code.order: the functions of the release `cajetac` that
`check` and `build` of a small program run, which compiler/build.rs asks lld to lay out
together at the start of the executable's code (fewer page faults at every start; see the
build script's `hot_code_first_for_cajetac`).

    scripts/hot_code_order.py [CAJETAC]

CAJETAC is a release build of `cajetac` (default target/release/cajetac). The functions are
those callgrind sees called (`--demangle=no`, so the names are the symbols the linker
knows) while the binary runs `check` and `build` on tests/kernels/saxpy.cajeta, kept when
the binary defines them, in the order of their addresses in it (the compiler's own order,
which keeps callers near callees). Run it again after a toolchain or dependency update
(symbol hashes change with them) or when the start-up path changes; a stale list only costs
page faults. Needs valgrind and nm.
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests/kernels/saxpy.cajeta")
OUT = os.path.join(ROOT, "compiler/link/cajetac-hot-code.order")


def called_functions(cajetac: str, args: list, tmp: str) -> set:
    """The symbols callgrind names while `cajetac ARGS` runs (one compile thread)."""
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}"]
        + [cajetac]
        + args,
        env=dict(os.environ, CAJETA_COMPILE_THREADS="1"),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # Callgrind names a function in full the first time it appears, as caller (`fn=`) or
    # callee (`cfn=`), and by number after that.
    names = set()
    with open(out) as f:
        for line in f:
            m = re.match(r"c?fn=\(\d+\) (.+)", line)
            if m:
                names.add(m.group(1).strip())
    return names


def main() -> None:
    cajetac = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/cajetac")
    with tempfile.TemporaryDirectory() as tmp:
        called = called_functions(cajetac, ["check", PROGRAM], tmp)
        called |= called_functions(cajetac, ["build", PROGRAM, "-o", os.path.join(tmp, "o")], tmp)
    defined = {}
    nm = subprocess.run(["nm", "--defined-only", cajetac], check=True, capture_output=True, text=True)
    for line in nm.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            defined.setdefault(parts[2], int(parts[0], 16))
    hot = sorted((defined[n], n) for n in called if n in defined)
    with open(OUT, "w") as f:
        f.writelines(name + "\n" for _, name in hot)
    print(f"{len(hot)} functions written to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
