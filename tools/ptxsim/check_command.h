// `ptxsim check KERNEL.ptx [--json]`: every check that can be decided from the PTX text alone.
//   1. the front end and decoder: syntax, instruction forms against the module's .target and
//      .version (first error only: decoding stops there), with file:line:col and a caret;
//   2. the TMA verifiers on the text (verifiers/tma/check.h): cp.async.bulk modifier order and
//      operand classes, tensormap rebind sequences;
//   3. the tcgen05 verifiers on the text (verifiers/tcgen05/ptx_check.h): target gates, kind-word
//      ladder, constant instruction descriptors, tcgen05.cp pairings, TMEM lifecycle.
// Output: one "FILE:LINE: error: MESSAGE" line per diagnostic (the decoder's with its source line
// and caret), then a summary line on stderr. A form ptxsim recognises but does not simulate is a
// note, not an error: the PTX is valid.
// Exit codes: 0 no errors, 4 errors found, 1 unreadable file or bad arguments.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

int check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxsim::cli
