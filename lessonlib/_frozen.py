"""Every notebook - ReadOnlyDict, the lesson's constant tables (PROFILE, PRIOR, CUE_TABLE,
...): a real dict whose every mutating method raises TypeError, so no table is shared state."""

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
