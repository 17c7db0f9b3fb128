# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
import sys
from .bench import main
sys.exit(main())
