"""Every notebook - a read-only dict for the lesson's constant tables.

The tables (PROFILE, PRIOR, CUE_TABLE, ...) must not be changed in place - that
would be module-level mutable state shared by every model and notebook.  A
``ReadOnlyDict`` is a real dict (pandas, json and ``dict(...)`` take it as
one, and it prints like one) whose every mutating method raises TypeError.
Copy it with ``dict(table)`` to make a variant.
"""

from __future__ import annotations

from typing import NoReturn

__all__ = ["ReadOnlyDict"]


class ReadOnlyDict(dict):
    """A dict that refuses changes: copy it with ``dict(...)`` to make a variant."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "this lesson table is read-only; make a changed copy with "
            "dict(table) (e.g. cues = dict(CUE_TABLE); cues['x'] = 'zararli')"
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = _refuse

    def __hash__(self) -> int:  # type: ignore[override]  # read-only, so it can be hashed
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type, tuple[dict]]:
        return (type(self), (dict(self),))

    def __copy__(self) -> ReadOnlyDict:
        return self

    def __deepcopy__(self, memo: dict) -> ReadOnlyDict:
        return self

    def __repr__(self) -> str:
        return dict.__repr__(self)

    def _repr_pretty_(self, printer, cycle):
        printer.pretty(dict(self))
