"""The root of every exception raised by shared/ats: AtsError, NotAllowed and Refused.

The bottom layer: it imports nothing, so every package (the pure parsing and sandbox code
included) can derive from it. Each package that raises errors of its own has one base
(`IntakeError`, `JobError`, ...) deriving from AtsError and exported from its api.py;
tests/skeleton/test_errors.py fails when an exception class under shared/ats does not
derive from AtsError.
"""

from __future__ import annotations


class AtsError(Exception):
    """Something this system raised on purpose (not a bug, not a library's failure)."""


class NotAllowed(AtsError, PermissionError):
    """The actor may not do this (iam said no). One class for every module that checks.

    Still a PermissionError: the CLI commands catch PermissionError to print a refusal.
    """


class Refused(AtsError):
    """An action refused in the state it found (every `*Refused` derives from it); the
    message is for the person who asked. Each subclass keeps its old builtin base too."""
