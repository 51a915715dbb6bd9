"""Constrained MSSC, Randel et al. (2021) (2)-(6): the convex MIQCP reformulation.

Pyomo command file: the formulation is declared by ccopt.models.mssc (the same rules as
ccopt.models.build_mssc_model(form="convex")); the data come from a .dat file. The model has
quadratic rows, so it needs an MIQCP solver (SCIP, Gurobi, CPLEX), e.g. from Python::

    from ccopt import solvers
    instance = model.create_instance("models/data/tiny.dat")
    solvers.solve(instance, "scip_direct")

or, through the pyomo command, any classic-interface MIQCP solver installed on the PATH
(``--solver=scip`` with the ``scip`` executable, ``--solver=gurobi``).
"""

from ccopt.models.mssc import abstract_mssc_model

model = abstract_mssc_model(form="convex")
