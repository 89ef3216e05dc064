# ptxsim's own Gluon kernels (triton.experimental.gluon) for sm_100a. scripts/gen_triton_ptx.py
# compiles them (BUILDS below) next to the Triton ones.
BUILDS = {}
