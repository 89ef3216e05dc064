// `ptxsim exec [--arch sm_90a|sm_100a] [--device h100|h200|b200] [run options] -- PROGRAM ARGS...`:
// runs an unmodified CUDA program (built with -cudart shared and PTX for its kernels) on the
// simulator by putting ptxsim's libcudart.so.13 / libcuda.so.1 (tools/cuda_shim) first on
// LD_LIBRARY_PATH and passing the options in PTXSIM_* environment variables. The exit status is
// the program's. docs/cuda-shim.md has the details.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

int exec_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
