"""``python -m symdelay`` runs the CLI."""

import sys

from symdelay.cli import main

sys.exit(main())
