"""No notebook: ``python -m lessonlib`` (``make lesson``) prints the lesson's three blocks."""

from .report import lesson

__all__ = ["main"]


def main() -> None:
    print("\n\n".join(lesson().blocks()))


if __name__ == "__main__":
    main()
