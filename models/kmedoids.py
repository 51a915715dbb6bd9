"""Constrained k-medoids (p-median form), Randel et al. (2021) (2)-(5), (7)-(9).

Pyomo command file: the formulation is declared by ccopt.models.kmedoids (the same rules
as ccopt.models.build_kmedoids_model); the data come from a .dat file::

    pyomo solve models/kmedoids.py models/data/tiny.dat --solver=cbc
    pyomo convert --output=kmedoids.mps models/kmedoids.py models/data/tiny.dat

The command cannot drive HiGHS (models/README.md says why and what to do instead).
"""

from ccopt.models.kmedoids import abstract_kmedoids_model

model = abstract_kmedoids_model()
