"""The tiny .dat instance the tests of the abstract models vary."""

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
