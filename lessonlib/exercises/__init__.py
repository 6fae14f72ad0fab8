"""Exercise checks, one module per step notebook: ``from lessonlib.exercises import step02 as ex``.

Every check takes the student's answer, prints one message that starts with
``PASS:`` or ``Not yet:`` (a hint), and returns True or False.  The right answer
is computed from lessonlib on the lesson's record set, never typed in.  A wrong
answer of any kind never raises: it gets a hint.  No public name of a step module
holds or returns an answer: the answers are computed by private functions, registered in
the private ``_ANSWERS`` (tests/test_answers_hidden.py); numeric answers are graded by
``_common._grade_number`` (a pair or a dict of numbers: ``_common._grade_numbers``).
Importing this package loads no step module, so notebook 01 does not load the many-seed
engine.
"""
