"""vhuman: virtual humans that walk, reach, work in tight spaces, balance and predict motion."""

__version__ = "0.1.0"
__all__ = ["__version__"]
