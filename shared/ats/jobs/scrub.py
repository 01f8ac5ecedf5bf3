"""Trim and scrub an exception's text before it is stored or shown to an operator.

Operators see no personal data (issue 24 item 9). An exception message or a traceback
line can carry a candidate's e-mail, phone number or the file name of their CV (a
document's name often is the person's name), so each is replaced by a placeholder. Code
paths in the traceback (`File ".../x.py"`) are kept: they are the point of a traceback.
Pure: no Django, no database.
"""

from __future__ import annotations

import re
import traceback as tb_module

MAX_ERROR_CHARS = 500
MAX_TRACEBACK_CHARS = 4000
MAX_FRAMES = 12

_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
# Seven or more digits, with the separators phone numbers are written with.
_PHONE = re.compile(r"(?<![\w.])\+?\(?\d[\d\s().\-/]{5,}\d(?![\w.])")
_DOCUMENT = re.compile(
    r"[^\s\"'/\\<>|:*?]+\.(?:pdf|docx?|rtf|odt|txt|png|jpe?g|tiff?|gif|bmp|webp|heic|eml|msg|zip|html?|xlsx?|pages)\b",
    re.IGNORECASE,
)


def scrub(text: str) -> str:
    text = _EMAIL.sub("<email>", text)
    text = _DOCUMENT.sub("<file>", text)
    return _PHONE.sub(lambda m: "<phone>" if sum(c.isdigit() for c in m.group()) >= 7 else m.group(), text)


def error_line(exc: BaseException) -> str:
    """ "ExceptionType: message", scrubbed and bounded."""
    message = str(exc)
    line = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return scrub(line)[:MAX_ERROR_CHARS]


def trimmed_traceback(exc: BaseException) -> str:
    """The innermost frames (where it failed) and the exception line, scrubbed and bounded."""
    frames = tb_module.extract_tb(exc.__traceback__)[-MAX_FRAMES:]
    text = "".join(tb_module.format_list(frames)) + "".join(tb_module.format_exception_only(type(exc), exc))
    text = scrub(text)
    if len(text) > MAX_TRACEBACK_CHARS:
        text = "...\n" + text[-MAX_TRACEBACK_CHARS:]
    return text
