"""The files shipped inside the package (models, controllers, scenes, postures, clips).

Every shipped file is found through :func:`shipped_path`, one place for the
package's data folder; the folder's README lists the files and their sources.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["shipped_path"]


def shipped_path(*parts: str) -> Path:
    """The path of a shipped file or folder, ``vhuman/data/<parts...>``.

    The package is installed as plain files (a wheel or an editable install),
    so the path is a real one that ``open`` and numpy read.

    Parameters
    ----------
    *parts : str
        Path components below the data folder, e.g. ``"models", "swivel_mlp.npz"``.

    Returns
    -------
    Path
        The path; whether it exists is not checked.

    Examples
    --------
    >>> shipped_path("controllers", "walk.json").name
    'walk.json'
    """
    return Path(str(resources.files("vhuman.data").joinpath(*parts)))
