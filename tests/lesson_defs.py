"""The lesson's definitions, written out independently for the tests.

Unit tests derive their expectations from these few lines of plain integer
arithmetic (the definitions are facts of the lesson), never from lessonlib.
Only what a worked case needs is here: the seed scrambler, the 32-bit linear
congruential generator, the running-sum choice and the prompt hash.
"""

MASK = 2**32 - 1
STRIDE = 6151  # record i draws from seed + 6151 * i


def scramble(t):
    """Two multiply-xorshift rounds: the generator's starting state for seed t."""
    x = ((t ^ (t >> 16)) * 2246822507) % 2**32
    x = ((x ^ (x >> 13)) * 3266489909) % 2**32
    return (x ^ (x >> 16)) % 2**32


def uniforms(t, k):
    """The first k numbers in [0, 1) of the generator seeded with t."""
    state, out = scramble(t), []
    for _ in range(k):
        state = (state * 1664525 + 1013904223) % 2**32
        out.append(state / 2**32)
    return out


def choose(u, weights):
    """The index whose running-sum bracket holds u (the last one if none does)."""
    running = 0.0
    for index, weight in enumerate(weights):
        running += weight
        if u < running:
            return index
    return len(weights) - 1


def fnv(text):
    """32-bit FNV-1a of the characters of text (the per-prompt trace id)."""
    h = 2166136261
    for ch in text:
        h = ((h ^ ord(ch)) * 16777619) % 2**32
    return h


FREE_FORM_WEIGHTS = (0.42, 0.26, 0.32)  # 'kayit X gorunuyor', 'bu kaydi X sayiyorum', unreadable


def record(
    no=1,
    cls="clean",
    flags=(),
    source="user",
    text="mahallede kesinti ne zaman bitecek",
    length=100,
):
    """A hand-made Record with the named flags set (the others clear)."""
    from lessonlib import FEATURES, Flags, Record

    unknown = set(flags) - set(FEATURES)
    assert not unknown, unknown
    return Record(no, cls, source, Flags(f in flags for f in FEATURES), text, length)
