"""The tokenizer is linear in the length of its text (issue 12, row 7).

A word of n characters is cut into n / 5 pieces; cutting it by repeated
slicing of the rest of the word copied O(n**2) characters (a 10**6-character
word took 3.5 s).  We time a 10**5- and a 10**6-character text, a single word
and a guideline-like mix of words: 10**6 characters must take under a second
(linear: about 0.1 s; quadratic: 3.5 s on a quiet machine, 9 s under load).

Run: .venv/bin/python benchmarks/bench_tokenize.py   (or make bench)
"""

import sys
from functools import partial

from _timing import best_of, load_line
from lessonlib import tokenize

SMALL, LARGE = 10**5, 10**6
MAX_SECONDS = 1.0


def main():
    print(load_line("start", cores=True))
    failed = False
    for name, unit in (("one long word", "x"), ("words and commas", "yonerge asiri, ")):
        times = {}
        for n in (SMALL, LARGE):
            text = (unit * (n // len(unit) + 1))[:n]
            times[n], _, pieces = best_of(3, partial(tokenize, text))
            print(f"{name:<17} {n:>9,} characters: {times[n] * 1000:8.1f} ms, "
                  f"{len(pieces):,} pieces")
        ok = times[LARGE] < MAX_SECONDS
        failed |= not ok
        print(f"{name:<17} {LARGE:,} characters in {times[LARGE]:.2f} s (target < "
              f"{MAX_SECONDS:.0f} s): {'ok' if ok else 'MISSED'}")
    print(load_line("end"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
