"""Constrained MSSC, Randel et al. (2021) (2)-(6), with the paper's fractional objective (6).

Pyomo command file: the formulation is declared by ccopt.models.mssc (the same rules as
ccopt.models.build_mssc_model(form="fractional")); the data come from a .dat file. The
objective is a non-convex ratio of quadratics: it needs a global MINLP solver (SCIP through
``ccopt.solvers.solve(instance, "scip_direct")``, Gurobi with NonConvex=2). Tiny instances only.
"""

from ccopt.models.mssc import abstract_mssc_model

model = abstract_mssc_model(form="fractional")
