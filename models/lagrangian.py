"""The Lagrangian relaxation (10) of Randel et al. (2021) over the k-medoids LP relaxation.

Pyomo command file: the formulation is declared by ccopt.models.lagrangian (the same rules
as ccopt.models.build_lagrangian_model); the data come from a .dat file, which may also
give the multipliers (default 0, each <= 0), indexed by constraint position and medoid::

    param eta := 0 3 -0.25 ;        # cannot-link 0, medoid 3
    param lam := 1 6 -0.5 ;         # must-link 1, medoid 6: multiplies eps + z[u,6] - z[v,6]
    param gamma := 1 2 -0.5 ;       # must-link 1, medoid 2: multiplies eps + z[v,2] - z[u,2]

    pyomo solve models/lagrangian.py models/data/tiny.dat --solver=cbc
"""

from ccopt.models.lagrangian import abstract_lagrangian_model

model = abstract_lagrangian_model(base="kmedoids", relax=True)
