"""`python -m kernels judge …` / `python -m kernels exercises`."""

import sys

from kernels.cli import main

sys.exit(main())
