"""vhuman: virtual humans that walk, reach, work in tight spaces, balance and predict motion."""

from importlib.metadata import version

__version__ = version("vhuman")
__all__ = ["__version__"]
