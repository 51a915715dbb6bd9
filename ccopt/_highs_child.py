"""The child process of a HiGHS solve that must be stoppable (``HighsMatrixSolver(isolate_from=...)``).

HiGHS 1.16 does not read its clock inside the central-rounding heuristic of the root node,
so only a process can be stopped there. This file is run by path (``python _highs_child.py
FOLDER``), not imported as ``ccopt._highs_child``: importing the package would cost the child
seconds, and it needs numpy and highspy only (about 0.3 s). It reads the program
(``program.npz``) and the options (``options.json``) from ``FOLDER``, writes every improving
solution to ``incumbent.npy`` as it goes (so a killed run still leaves its best), then the
result to ``result.npz`` and HiGHS's model status to ``termination.txt``.
"""

import json
import os
import signal
import sys
import time

# The parent stops the child on Ctrl-C; the child must not die first with a traceback.
signal.signal(signal.SIGINT, signal.SIG_IGN)

import highspy  # noqa: E402
import numpy as np  # noqa: E402

_PRIMAL_FEASIBLE = 2  # HiGHS's kSolutionStatusFeasible


def _model(data, options: dict):
    lp = highspy.HighsLp()
    lp.num_row_, lp.num_col_ = (int(v) for v in data["shape"])
    lp.col_cost_, lp.offset_ = data["cost"], float(options["offset"])
    lp.col_lower_, lp.col_upper_ = data["col_lower"], data["col_upper"]
    lp.row_lower_, lp.row_upper_ = data["row_lower"], data["row_upper"]
    lp.sense_ = highspy.ObjSense.kMaximize if options["maximize"] else highspy.ObjSense.kMinimize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = data["indptr"], data["indices"], data["data"]
    lp.integrality_ = [highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous
                       for flag in data["integer"]]
    return lp


def main(folder: str) -> None:
    data = np.load(os.path.join(folder, "program.npz"))
    with open(os.path.join(folder, "options.json")) as handle:
        options = json.load(handle)
    h = highspy.Highs()
    h.setOptionValue("output_flag", options["tee"])
    if options["threads"] is not None:
        h.setOptionValue("threads", options["threads"])
    if h.passModel(_model(data, options)) == highspy.HighsStatus.kError:
        sys.exit("HiGHS rejected the model (passModel failed).")
    if options["mip_gap"] is not None:
        h.setOptionValue("mip_rel_gap", options["mip_gap"])
    for key, value in options["extra"].items():
        h.setOptionValue(key, value)
    if "start" in data:
        start = highspy.HighsSolution()
        start.col_value, start.value_valid = data["start"], True
        h.setSolution(start)

    incumbent = os.path.join(folder, "incumbent.npy")

    def keep(event):
        # Written aside and renamed, so the parent never reads half a file when it kills us.
        np.save(incumbent + ".part.npy", np.asarray(event.data_out.mip_solution, dtype=np.float64))
        os.replace(incumbent + ".part.npy", incumbent)

    h.cbMipImprovingSolution.subscribe(keep)
    # The wall clock: the parent's perf_counter is not ours.
    h.setOptionValue("time_limit", max(options["deadline"] - time.time(), 1e-3))
    h.run()
    info, termination = h.getInfo(), h.getModelStatus().name
    feasible = int(info.primal_solution_status) == _PRIMAL_FEASIBLE and termination != "kUnbounded"
    col_value = np.asarray(h.getSolution().col_value, dtype=np.float64) if feasible else np.zeros(0)
    np.savez(os.path.join(folder, "result.npz"), col_value=col_value, feasible=feasible,
             bound=float(info.mip_dual_bound))
    with open(os.path.join(folder, "termination.txt"), "w") as handle:
        handle.write(termination)


if __name__ == "__main__":
    main(sys.argv[1])
