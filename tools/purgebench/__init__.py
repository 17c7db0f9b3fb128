# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""purgebench: deploy mariadbd, drive sysbench, sample purge state, report."""
