"""`python -m senna`: the `senna` command."""

import sys

from senna.cli.main import main

sys.exit(main())
