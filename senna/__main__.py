"""`python -m senna`: the `senna` command."""

import sys

from senna.cli.main import main

# Run as the `senna` command, so that a training run records its command line as one
# (senna.train.tagging.command_line, which model cards print), not as "(called from Python)".
sys.argv[0] = "senna"
sys.exit(main())
