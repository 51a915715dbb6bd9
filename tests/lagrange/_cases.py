"""Cases several test files of ccopt.lagrange share: the impact-score routes, an odd cycle."""

from __future__ import annotations

import ccopt

# Every (criterion, method) route of the impact score.
ROUTES = [("kmedoids", m) for m in ccopt.lagrange.METHODS["kmedoids"]] + [("mssc", "kmeans")]
# Five cannot-links in a cycle: no triangle, yet not 2-colourable.
FIVE_CYCLE = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
