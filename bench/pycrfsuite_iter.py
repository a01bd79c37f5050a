"""Peer benchmark for crf_train_iter: seconds per L-BFGS iteration of python-crfsuite 0.9.12 on
the CRFsuite text file the Rust bench writes (label TAB attr TAB ..., blank line between
sequences). Prints one line: median wall and CPU seconds per iteration over iterations 2-8."""
import sys
import time

import pycrfsuite


STAMPS = []


class Timed(pycrfsuite.Trainer):
    def on_iteration(self, log, info):
        STAMPS.append((time.time(), time.process_time()))


def main(path):
    tr = Timed(verbose=True)
    xs, ys = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if xs:
                    tr.append(xs, ys)
                xs, ys = [], []
                continue
            parts = line.split("\t")
            ys.append(parts[0])
            xs.append(parts[1:])
    if xs:
        tr.append(xs, ys)
    tr.set_params({"c1": 0.0, "c2": 1.0, "max_iterations": 8,
                   "feature.possible_transitions": True})
    start = time.time()
    real = sys.stdout
    sys.stdout = open("/dev/null", "w")  # verbose=True is needed for on_iteration
    try:
        tr.train("/tmp/quire-bench-pycrfsuite.model")
    finally:
        sys.stdout = real
    wall = sorted(b[0] - a[0] for a, b in zip(STAMPS, STAMPS[1:]))
    cpu = sorted(b[1] - a[1] for a, b in zip(STAMPS, STAMPS[1:]))
    print(f"{wall[len(wall) // 2]:.3f} s/iter wall, {cpu[len(cpu) // 2]:.3f} CPU-s/iter "
          f"(medians of iterations 2-8; whole train() {time.time() - start:.2f} s)")


if __name__ == "__main__":
    main(sys.argv[1])
