"""`python -m vhuman` runs the command line."""

from vhuman.cli import main

main()
