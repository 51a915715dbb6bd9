"""Skip markers for the solvers beyond HiGHS that several test files need."""

from __future__ import annotations

import pytest

from ccopt.solvers import available_solvers

needs_scip = pytest.mark.skipif("scip_direct" not in available_solvers(("scip_direct",)),
                                reason="pyscipopt is not installed (pip install pyscipopt)")
