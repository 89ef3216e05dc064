#include <cstdlib>
#include "verifiers/tma/rebind.h"

namespace ptxsim::verifiers::tma {

namespace {
// The size operand of the acquire fence: 128 written in any PTX integer form (128, 0x80, 0200).
bool is_128(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  return v == 128 && (*end == 0 || ((*end == 'U' || *end == 'u') && end[1] == 0));
}
}  // namespace


namespace {

constexpr const char* kAcquire = "fence.proxy.tensormap::generic.acquire";
constexpr const char* kRelease = "fence.proxy.tensormap::generic.release";
constexpr const char* kEnd = "the end of the instructions";

enum class Kind { Other, Acquire, Release, SeedCopy, Replace };

struct Classified {
  Kind kind = Kind::Other;
  std::string scope;  // fences
  std::string mode, field, space, type;
  bool b1024 = false;
  bool well_formed = false;  // replace: opcode shape tensormap.replace.MODE.FIELD[.SPACE].b1024.TYPE
};

Classified classify(const PtxInstruction& in) {
  Classified c;
  const auto& p = in.parts;
  if (p.size() >= 4 && p[0] == "fence" && p[1] == "proxy" && p[2] == "tensormap::generic") {
    if (p[3] == "acquire") c.kind = Kind::Acquire;
    if (p[3] == "release") c.kind = Kind::Release;
    if (p.size() >= 5) c.scope = p[4];
    return c;
  }
  if (p.size() >= 2 && p[0] == "tensormap" && p[1] == "cp_fenceproxy") {
    c.kind = Kind::SeedCopy;
    return c;
  }
  if (p.size() >= 4 && p[0] == "tensormap" && p[1] == "replace") {
    c.kind = Kind::Replace;
    c.mode = p[2];
    c.field = p[3];
    size_t i = 4;
    if (i < p.size() && (p[i] == "global" || p[i] == "shared::cta")) c.space = p[i++];
    if (i < p.size() && p[i] == "b1024") {
      c.b1024 = true;
      ++i;
    }
    if (i < p.size()) c.type = p[i++];
    c.well_formed = i == p.size() && c.b1024 && !c.space.empty();
  }
  return c;
}

std::optional<MutatorField> mutable_field(const Classified& c) {
  if (c.mode != "tile") return std::nullopt;
  if (c.field == "global_address") return MutatorField::GlobalAddress;
  if (c.field == "global_dim") return MutatorField::GlobalDim;
  if (c.field == "global_stride") return MutatorField::GlobalStride;
  return std::nullopt;
}

bool is_decimal(const std::string& s) {
  if (s.empty() || s.size() > 3) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}

}  // namespace

// ---- templates ---------------------------------------------------------------------------------

const char* mutator_template(MutatorField f) {
  switch (f) {
    case MutatorField::GlobalAddress: return "tensormap.replace.tile.global_address.{0}.b1024.b64 [$0], $1;";
    case MutatorField::GlobalDim: return "tensormap.replace.tile.global_dim.{0}.b1024.b32 [$0], {1}, $1;";
    case MutatorField::GlobalStride: return "tensormap.replace.tile.global_stride.{0}.b1024.b64 [$0], {1}, $1;";
  }
  return "";
}

const char* mutator_name(MutatorField f) {
  switch (f) {
    case MutatorField::GlobalAddress: return "global_address";
    case MutatorField::GlobalDim: return "global_dim";
    case MutatorField::GlobalStride: return "global_stride";
  }
  return "";
}

std::string render_mutator(MutatorField f, std::string_view space, int index) {
  std::string t = mutator_template(f), out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 3, "{0}") == 0) {
      out += space;
      i += 2;
    } else if (t.compare(i, 3, "{1}") == 0) {
      out += std::to_string(index);
      i += 2;
    } else {
      out += t[i];
    }
  }
  return out;
}

const char* mutator_constraints(MutatorField f, std::string_view space) {
  switch (f) {
    case MutatorField::GlobalAddress: return space == "shared::cta" ? "r,l" : "l,l";
    case MutatorField::GlobalDim: return "l,r";
    case MutatorField::GlobalStride: return "l,l";
  }
  return "";
}

// ---- update kinds ------------------------------------------------------------------------------

std::string check_tma_updates(const std::vector<TmaUpdate>& updates, int rank) {
  if (rank < 1 || rank > 5) return "expected a descriptor rank between 1 and 5, but got " + std::to_string(rank);
  for (const TmaUpdate& u : updates) {
    if (u.kind == "base_pointer") continue;
    if (u.kind == "dim") {
      if (u.axis < 0 || u.axis >= rank)
        return "expected a dimension axis below the rank " + std::to_string(rank) + ", but got " +
               std::to_string(u.axis);
      continue;
    }
    if (u.kind == "stride") {
      if (u.axis == 0) return diag::kNotDeviceMutable;  // the leading stride is the element size
      if (u.axis < 0 || u.axis >= rank)
        return "expected a stride axis between 1 and " + std::to_string(rank - 1) + ", but got " +
               std::to_string(u.axis);
      continue;
    }
    return diag::kNotDeviceMutable;
  }
  return "";
}

// ---- the sequence ------------------------------------------------------------------------------

void RebindChecker::error(int line, std::string message) {
  diags_.push_back({line, std::move(message)});
  state_ = State::Skip;
}

std::string RebindChecker::expected_mutator(MutatorField f, int index) const {
  const std::string space = space_.empty() ? "global" : space_;
  switch (f) {
    case MutatorField::GlobalAddress: return "expected the global_address mutator (" + render_mutator(f, space) + ")";
    case MutatorField::GlobalDim:
      return "expected the global_dim mutator for dimension " + std::to_string(index) + " (" +
             render_mutator(f, space, index) + ")";
    case MutatorField::GlobalStride:
      return "expected the global_stride mutator for dimension " + std::to_string(index + 1) + " (" +
             render_mutator(f, space, index) + ")";
  }
  return "";
}

void RebindChecker::feed(int line, const PtxInstruction& in, const std::optional<std::string>& constraints) {
  if (opt_.single_sequence && !diags_.empty()) return;
  const Classified c = classify(in);
  if (c.kind == Kind::Other) return;
  last_line_ = line;
  const std::string got = ", but got " + in.text;

  auto begin_message = [&] {
    return std::string("expected the rebind sequence to begin with ") + kAcquire + got;
  };
  auto release_message = [&] { return std::string("expected ") + kRelease + " to end the rebind sequence" + got; };
  auto complete = [&] {
    current_.push_back({"release." + c.scope, line});
    steps_ = current_;
    ++completed_;
    last_replace_ops_ = replace_ops_;
    last_rank_ = rank_;
    state_ = opt_.single_sequence ? State::Done : State::Idle;
  };
  auto check_fence = [&]() -> bool {
    static const char* kScopes[] = {"cta", "cluster", "gpu", "sys"};
    bool ok = false;
    for (const char* s : kScopes) ok = ok || c.scope == s;
    if (!ok || in.parts.size() != 5) {
      error(line, "expected a fence scope of .cta, .cluster, .gpu or .sys" + got);
      return false;
    }
    if (c.kind == Kind::Acquire &&
        (in.operands.size() != 2 || !unwrap(in.operands[0], '[', ']') || !is_128(in.operands[1]))) {
      error(line, std::string("expected ") + kAcquire + "." + c.scope + " [addr], 128" + got);
      return false;
    }
    if (opt_.shared_across_ctas && c.scope != "gpu" && c.scope != "sys") {
      error(line, "expected a .gpu or .sys fence scope for a descriptor shared across CTAs" + got);
      return false;
    }
    return true;
  };
  auto start = [&] {
    if (!check_fence()) return;
    state_ = State::PendingAcquire;
    dims_ = strides_ = replace_ops_ = 0;
    rank_ = opt_.rank.value_or(0);
    space_.clear();
    descriptor_.clear();
    current_.clear();
    current_.push_back({"acquire." + c.scope, line});
    saw_start_ = true;
  };

  if (c.kind == Kind::Replace && !mutable_field(c)) {
    error(line, diag::kNotDeviceMutable);
    return;
  }

  switch (state_) {
    case State::Done:
      error(line, "expected the rebind sequence to end after the release fence" + got);
      return;
    case State::Skip:
      if (c.kind == Kind::Acquire) start();
      else if (c.kind == Kind::Release) state_ = State::Idle;
      return;
    case State::Idle:
      if (c.kind == Kind::Acquire) return start();
      if (c.kind == Kind::SeedCopy) {
        if (opt_.single_sequence && saw_start_) error(line, begin_message());
        return;
      }
      if (c.kind == Kind::Release) {
        if (opt_.single_sequence) error(line, begin_message());
        return;
      }
      error(line, begin_message());
      return;
    case State::PendingAcquire:
      if (c.kind == Kind::Acquire && !opt_.single_sequence) return start();  // the last one was a consumer's
      if (c.kind == Kind::Release && !opt_.single_sequence) {
        state_ = State::Idle;
        return;
      }
      if (c.kind == Kind::SeedCopy && !opt_.single_sequence) {
        state_ = State::Idle;
        return;
      }
      break;
    default: break;
  }

  // Inside a sequence: what comes next?
  std::optional<MutatorField> want;
  int want_index = 0;
  bool release_ok = false;
  switch (state_) {
    case State::PendingAcquire: want = MutatorField::GlobalAddress; break;
    case State::Dims:
      if (opt_.rank) {
        want = MutatorField::GlobalDim;
        want_index = dims_;
      } else if (dims_ >= 2 && c.kind == Kind::Replace && c.field == "global_stride") {
        rank_ = dims_;
        state_ = State::Strides;
        want = MutatorField::GlobalStride;
        want_index = 0;
      } else if (dims_ == 1 && c.kind == Kind::Release) {
        rank_ = 1;
        release_ok = true;
      } else if (dims_ >= 2 && c.kind == Kind::Release) {
        rank_ = dims_;
        want = MutatorField::GlobalStride;
        want_index = 0;
      } else {
        want = MutatorField::GlobalDim;
        want_index = dims_;
      }
      break;
    case State::Strides:
      want = MutatorField::GlobalStride;
      want_index = strides_;
      break;
    case State::ExpectRelease: release_ok = true; break;
    default: break;
  }

  if (release_ok) {
    if (c.kind != Kind::Release) return error(line, release_message());
    if (check_fence()) complete();
    return;
  }
  if (c.kind != Kind::Replace || !want || *mutable_field(c) != *want) {
    if (want) return error(line, expected_mutator(*want, want_index) + got);
    return error(line, release_message());
  }
  // The mutator we want: check it against its template.
  if (space_.empty() && (c.space == "global" || c.space == "shared::cta")) space_ = c.space;
  const std::string want_type = *want == MutatorField::GlobalDim ? "b32" : "b64";
  const size_t want_operands = *want == MutatorField::GlobalAddress ? 2 : 3;
  bool ok = c.well_formed && c.space == space_ && c.type == want_type && in.operands.size() == want_operands &&
            unwrap(in.operands[0], '[', ']').has_value();
  if (ok && want_operands == 3) ok = is_decimal(in.operands[1]) && std::stoi(in.operands[1]) == want_index;
  if (!ok) return error(line, expected_mutator(*want, want_index) + got);
  if (descriptor_.empty()) descriptor_ = in.operands[0];
  if (in.operands[0] != descriptor_)
    return error(line, "expected every mutator of the rebind sequence to write the descriptor " + descriptor_ + got);
  if (constraints) {
    const std::string expect = mutator_constraints(*want, space_);
    if (*constraints != expect)
      return error(line, "expected the constraint string \"" + expect + "\" for the " + mutator_name(*want) +
                             " mutator, but got \"" + *constraints + "\"");
  }
  ++replace_ops_;
  switch (*want) {
    case MutatorField::GlobalAddress:
      current_.push_back({"global_address", line});
      state_ = State::Dims;
      break;
    case MutatorField::GlobalDim:
      current_.push_back({"global_dim " + std::to_string(want_index), line});
      ++dims_;
      if (!opt_.rank && dims_ > 5)
        return error(line, "expected a descriptor rank between 1 and 5, but got " + std::to_string(dims_));
      if (opt_.rank && dims_ == rank_) state_ = rank_ == 1 ? State::ExpectRelease : State::Strides;
      break;
    case MutatorField::GlobalStride:
      current_.push_back({"global_stride " + std::to_string(want_index), line});
      ++strides_;
      if (strides_ == rank_ - 1) state_ = State::ExpectRelease;
      break;
  }
}

void RebindChecker::finish() {
  if (opt_.single_sequence && !diags_.empty()) return;
  const std::string got = std::string(", but got ") + kEnd;
  switch (state_) {
    case State::Idle:
      if (opt_.single_sequence && completed_ == 0)
        error(last_line_, std::string("expected the rebind sequence to begin with ") + kAcquire + got);
      break;
    case State::PendingAcquire:
      if (opt_.single_sequence) error(last_line_, expected_mutator(MutatorField::GlobalAddress, 0) + got);
      break;
    case State::Dims:
      if (!opt_.rank && dims_ == 1)
        error(last_line_, std::string("expected ") + kRelease + " to end the rebind sequence" + got);
      else if (!opt_.rank && dims_ >= 2)
        error(last_line_, expected_mutator(MutatorField::GlobalStride, 0) + got);
      else
        error(last_line_, expected_mutator(MutatorField::GlobalDim, dims_) + got);
      break;
    case State::Strides: error(last_line_, expected_mutator(MutatorField::GlobalStride, strides_) + got); break;
    case State::ExpectRelease:
      error(last_line_, std::string("expected ") + kRelease + " to end the rebind sequence" + got);
      break;
    default: break;
  }
}

}  // namespace ptxsim::verifiers::tma
