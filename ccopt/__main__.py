"""``python -m ccopt``: the same command as the ``ccopt`` console script."""

import sys

from ccopt.cli import main

if __name__ == "__main__":  # importing the module (pydoc, doctest collection) must not exit
    sys.exit(main())
