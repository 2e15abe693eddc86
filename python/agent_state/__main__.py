"""``python -m agent_state``: the ``agent-state`` command line."""

import sys

from .cli import main

sys.exit(main())
