"""Summarizes CAJETA_COMPILE_TRACE files (docs/cli.md): for each file given, the build's
phases relative to its first event, and when the emission helpers read their requests and
answered them."""
import sys

KEEP = ("main (", "handing", "helpers started", "build:", "ended helpers")
for path in sys.argv[1:]:
    lines = [l.rstrip("\n").split(" ", 3) for l in open(path)]
    t0 = float(lines[0][0])
    print("== %s: %.2f ms" % (path, float(lines[-1][0]) - t0))
    for t, pid, th, what in lines:
        if what.startswith(KEEP):
            print("%8.2f %-18s %s" % (float(t) - t0, th, what))
    reads = [float(t) - t0 for t, p, th, w in lines if w.startswith("helper: request")]
    answers = [float(t) - t0 for t, p, th, w in lines if w == "helper: answered"]
    if reads and answers:
        print("   %d requests read %.2f..%.2f, answered %.2f..%.2f"
              % (len(reads), min(reads), max(reads), min(answers), max(answers)))
