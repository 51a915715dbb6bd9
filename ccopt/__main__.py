"""``python -m ccopt``: the same command as the ``ccopt`` console script."""

import sys

from ccopt.cli import main

sys.exit(main())
