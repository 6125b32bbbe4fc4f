"""The exception hierarchy of vhuman: every error a user can cause is an `InputError`."""

from __future__ import annotations

__all__ = ["FileFormatError", "InputError", "UnknownJointError", "VHumanError"]


class VHumanError(Exception):
    """Root of every exception raised by vhuman on purpose."""


class InputError(VHumanError, ValueError):
    """An argument, array or file given to vhuman is invalid.

    The message names the offending input and what is allowed.
    """


class FileFormatError(InputError):
    """A motion or skeleton file is malformed, truncated or of an unknown format."""


class UnknownJointError(InputError):
    """A joint name that the skeleton does not have."""
