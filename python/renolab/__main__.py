"""Allow ``python -m renolab`` as an alternative to the ``renolab`` command."""

import sys

from renolab.cli import main

sys.exit(main())
