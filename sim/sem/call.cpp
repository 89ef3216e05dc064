// call, and the extern functions ptxsim provides itself: vprintf (CUDA's printf) and __assertfail
// (CUDA's device-side assert).
#include <bit>
#include <cstdio>
#include <string>

#include "sim/exec/engine.h"
#include "sim/sem/sem_util.h"

namespace ptxsim {

namespace {

constexpr uint32_t kNoOperand = 0xff;

std::string read_cstring(ExecCtx& c, uint64_t addr, int lane) {
  std::string s;
  for (uint32_t i = 0; i < 1u << 16; ++i) {
    char ch = char(*c.mem(Space::Generic, addr + i, 1, 1, lane, Access::Read));
    if (!ch) return s;
    s += ch;
  }
  return s;
}

// Reads the bytes of argument variable `arg` (a frame variable or a register) for lane l.
uint64_t arg_value(ExecCtx& c, const Operand& arg, int l, uint32_t bytes) {
  if (arg.frame_rel) {
    uint64_t v = 0;
    std::memcpy(&v, c.mem(Space::Local, c.local_base + uint64_t(arg.imm), bytes, 1, l, Access::Read), bytes);
    return v;
  }
  return c.col(arg)[l];
}

void set_ret(ExecCtx& c, const Instr& in, int l, uint64_t v) {
  if (in.a != 1 || in.op[0].count == 0) return;
  const Operand& r = c.fn->vec_pool[in.op[0].slot];
  if (r.frame_rel) std::memcpy(c.mem(Space::Local, c.local_base + uint64_t(r.imm), 4, 1, l, Access::Write), &v, 4);
  else c.col(r)[l] = v;
}

// Formats one printf call the way CUDA's device printf does: the arguments sit in a buffer, each
// aligned to its own size (8 bytes for doubles, pointers and long long; 4 for the rest).
std::string format_printf(ExecCtx& c, const std::string& fmt, uint64_t args, int l) {
  std::string out;
  uint64_t off = 0;
  auto take = [&](uint32_t size) {
    off = (off + size - 1) / size * size;
    uint64_t v = 0;
    std::memcpy(&v, c.mem(Space::Generic, args + off, size, 1, l, Access::Read), size);
    off += size;
    return v;
  };
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    std::string spec = "%";
    while (j < fmt.size() && std::string_view("-+ #0").find(fmt[j]) != std::string_view::npos) spec += fmt[j++];
    while (j < fmt.size() && (std::isdigit((unsigned char)fmt[j]) || fmt[j] == '.')) spec += fmt[j++];
    std::string len;
    while (j < fmt.size() && std::string_view("hlLqjzt").find(fmt[j]) != std::string_view::npos) len += fmt[j++];
    if (j >= fmt.size()) {
      out += spec + len;
      break;
    }
    char conv = fmt[j];
    char buf[512];
    bool wide = len == "l" || len == "ll" || len == "j" || len == "z" || len == "t" || len == "q";
    switch (conv) {
      case 'd': case 'i': {
        int64_t v = wide ? int64_t(take(8)) : int64_t(int32_t(take(4)));
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), (long long)v);
        break;
      }
      case 'u': case 'x': case 'X': case 'o': case 'c': {
        uint64_t v = wide ? take(8) : uint64_t(uint32_t(take(4)));
        if (conv == 'c') std::snprintf(buf, sizeof buf, (spec + "c").c_str(), int(v));
        else std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), (unsigned long long)v);
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double v = std::bit_cast<double>(take(8));
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), v);
        break;
      }
      case 'p': {
        uint64_t v = take(8);
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        break;
      }
      case 's': {
        uint64_t p = take(8);
        std::string s = p ? read_cstring(c, p, l) : std::string("(null)");
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
        break;
      }
      default:
        std::snprintf(buf, sizeof buf, "%s%s%c", spec.c_str(), len.c_str(), conv);
    }
    out += buf;
    i = j;
  }
  return out;
}

void builtin(ExecCtx& c, const Instr& in, uint32_t mask, const Function& callee) {
  const Operand* args = in.c == kNoOperand ? nullptr : &c.fn->vec_pool[in.op[in.c].slot];
  uint32_t nargs = in.c == kNoOperand ? 0 : in.op[in.c].count;
  auto arg = [&](uint32_t i, int l, uint32_t bytes) {
    if (i >= nargs) c.fault("error", "call to '" + callee.name + "' passes too few arguments");
    return arg_value(c, args[i], l, bytes);
  };
  if (callee.name == "vprintf") {
    for_lanes(mask, [&](int l) {
      std::string s = format_printf(c, read_cstring(c, arg(0, l, 8), l), arg(1, l, 8), l);
      c.eng->out << s;  // the launch's stream, or the cluster's buffer on a pool of threads
      set_ret(c, in, l, s.size());
    });
    c.eng->out.flush();
  } else if (callee.name == "__assertfail") {
    int l = std::countr_zero(mask);
    std::string msg = read_cstring(c, arg(0, l, 8), l);
    std::string file = read_cstring(c, arg(1, l, 8), l);
    uint32_t line = uint32_t(arg(2, l, 4));
    std::string func = read_cstring(c, arg(3, l, 8), l);
    Cta& cta = *c.cta;
    uint32_t t = c.warp->index * 32 + uint32_t(l);
    const Dim3& b = c.eng->cfg.block;
    c.fault("assertion", file + ":" + std::to_string(line) + ": " + func + ": block: [" + std::to_string(cta.id.x) +
                             "," + std::to_string(cta.id.y) + "," + std::to_string(cta.id.z) + "], thread: [" +
                             std::to_string(t % b.x) + "," + std::to_string(t / b.x % b.y) + "," +
                             std::to_string(t / (b.x * b.y)) + "] Assertion `" + msg + "` failed.");
  } else {
    c.fault("error", "call to extern function '" + callee.name + "', which ptxsim does not provide");
  }
}

void exec_call(ExecCtx& c, const Instr& in, uint32_t mask) {
  if (mask == 0) {
    c.group->pc = c.pc + 1;
    return;
  }
  if (mask != c.group->mask) c.eng->split_off_inactive(c, mask);
  const Function& callee = c.eng->prog.functions[in.op[in.b].slot];
  if (callee.is_builtin) {
    builtin(c, in, mask, callee);
    c.group->pc = c.pc + 1;
    return;
  }
  const Operand* args = in.c == kNoOperand ? nullptr : &c.fn->vec_pool[in.op[in.c].slot];
  uint32_t nargs = in.c == kNoOperand ? 0 : in.op[in.c].count;
  c.eng->call(c, callee, nullptr, 0, args, nargs);
}

}  // namespace

void bind_call(Binder& b) {
  size_t i = 0;
  b.in.a = 0;
  if (b.op_count() > 0 && b.op_kind(0) == Operand::Kind::Vec) {
    b.in.a = 1;
    i = 1;
  }
  if (i >= b.op_count()) b.error("call needs a function name");
  if (b.op_kind(i) != Operand::Kind::Func) b.unimplemented("indirect call through a register");
  const Function& callee = b.dec.program().functions[b.in.op[i].slot];
  if (!callee.has_body && !callee.is_builtin)
    b.error("call to '" + callee.name + "', which is declared but not defined in this module");
  b.in.b = uint8_t(i);
  b.in.c = kNoOperand;
  if (i + 1 < b.op_count()) {
    if (b.op_kind(i + 1) != Operand::Kind::Vec) b.error("call arguments must be a parenthesised list");
    b.in.c = uint8_t(i + 1);
  }
  b.in.fn = exec_call;
}

}  // namespace ptxsim
