// Whether a kernel's result could depend on the order in which its clusters run: decided once per
// kernel, when its module is decoded (Function::order_dependence), from the decoded instructions of
// the kernel and every function it can call. Such a launch
// runs its clusters on one thread, in linear order (docs/design.md "Parallel clusters").
#pragma once
#include <string>

namespace ptxsim {

class Program;
struct Function;

// Empty when the clusters of `kernel` may run in parallel; otherwise why not, naming the first
// instruction found that makes the order of clusters observable ("atom.global ... at line 42 ...").
std::string order_dependence(const Program& prog, const Function& kernel);

}  // namespace ptxsim
