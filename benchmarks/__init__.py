"""Reproduction and speed benchmarks of ccopt (not part of the installed package).

Each ``bench_*.py`` script defines ``main(argv)``, prints a table with the paper's figures
beside ours, and writes a CSV and a markdown report under ``benchmarks/reports/``. Run one
directly (``python benchmarks/bench_jia.py --quick``) or through the command line, which
discovers every ``bench_*.py`` with a ``main`` in this folder::

    ccopt bench --list
    ccopt bench jia --quick

Being a package lets ``ccopt bench`` import a script as ``benchmarks.bench_<name>``, so
module-level task functions can be sent to joblib workers by name.
"""
