"""No notebook: ``python -m lessonlib`` (``make lesson``) prints the lesson's three blocks."""

from .report import lesson_blocks


def main():
    print("\n\n".join(lesson_blocks()))


if __name__ == "__main__":
    main()
