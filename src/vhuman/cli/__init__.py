"""The `vhuman` command line (thin: parses, calls the library, prints)."""

from vhuman.cli.app import app, main

__all__ = ["app", "main"]
