"""The tiny .dat instance the tests of the abstract models vary, and the file models/data/tiny.dat."""

from pathlib import Path

TINY_DAT_FILE = Path(__file__).resolve().parents[2] / "models" / "data" / "tiny.dat"

TINY_DAT = """\
param n := 4;
param k := 2;
set F := 0 1;
param X :  0 1 :=
 0 0.0 0.0
 1 0.1 0.0
 2 5.0 5.0
 3 5.1 5.0 ;
param : ML : ml_u ml_v :=
 0 0 1 ;
param : CL : cl_u cl_v :=
 0 1 2 ;
"""
