// When a register<->shared copy lowers to ldmatrix/stmatrix (seed ldstmatrix-copy.txt): the
// predicate (target, exec scope, all threads active, a valid copy, a (local, shared*) pair), the
// layout fit (_try_num: regroup both layouts to [T/32, 8, 4, M/(2*num), num, 2], the m8n8 register
// fragment, row- or column-major shared tiles with 16-byte-aligned strides) tried for num = 4, 2, 1,
// the PTX each choice emits and the decline message.
//
// Layouts are TIRx-style: "S[(8,4,2,2):(4@laneid,1@laneid,2,1)]" (the S[...] is optional). Both
// layouts range over the same logical tile, flattened row-major (the first mode is outermost).
// Register strides name their axis: @laneid, @warpid, or none for the thread's local element
// offset; shared strides are element offsets.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifiers/layout/layout.h"
#include "verifiers/verifier.h"

namespace ptxsim::verifiers::ldstmatrix {

using Layout = layout::Layout;

// A leaf mode: `extent` elements `stride` apart along `axis` ("" = shared element offset or the
// thread's local element offset; "laneid" / "warpid" for the k@laneid / k@warpid basis strides).
struct Mode {
  int64_t extent = 1;
  int64_t stride = 0;
  std::string axis;
};
// The layout's leaves in written order (row-major here: the first is outermost).
std::vector<Mode> leaves(const Layout& l);

struct CopyRequest {
  std::string target = "cuda";
  std::string exec_scope = "warp";
  std::optional<int64_t> threads;  // T; default 32 (warp), 128 (warpgroup), 32 x the register layout's warps (cta)
  bool all_threads_active = true;
  std::string src_scope = "shared";
  std::string dst_scope = "local";
  std::string dtype = "float16";
  Layout register_layout;
  Layout shared_layout;
};

// One regrouped mode: [T/32, 8, 4, m_outer, num, 2] are groups 0..5.
struct Group {
  int64_t extent = 1;
  int64_t stride = 0;
  std::string axis;
};

struct Fit {
  int num = 0;
  bool trans = false;
  int64_t p = 0;        // per-row (trans: per-column) shared stride, elements
  int64_t m_outer = 0;  // instructions per lane
  int64_t warps = 1;    // T/32
  std::array<Group, 6> reg{}, shared{};
};

extern const char* const kDeclineMessage;  // "ldstmatrix layout doesn't fit any num ∈ {4,2,1}"

// Splits/merges the layout's leaves (row-major, first outermost) into groups of the given extents
// (outermost first). nullopt when a leaf straddles a group boundary unevenly or a group's pieces
// do not coalesce into one stride.
std::optional<std::array<Group, 6>> regroup(const std::vector<Mode>& leaves, const std::array<int64_t, 6>& extents);

int64_t thread_count(const CopyRequest& c);
// The predicate's reason to decline, or nullopt when the copy is an ldstmatrix candidate.
std::optional<std::string> predicate_reason(const CopyRequest& c);
std::optional<Fit> try_num(const Layout& r, const Layout& s, int num, int64_t threads);
std::optional<Fit> choose_fit(const CopyRequest& c);  // num = 4, 2, 1 in turn

bool is_load(const CopyRequest& c);  // shared -> local: ldmatrix; local -> shared: stmatrix
// "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
std::string ptx_for(bool load, int num, bool trans);

// Shared element offset the lane supplies for instruction mm of warp w (lanes 8j..8j+7 give matrix
// j's rows; lanes past 8*num repeat the pattern, the hardware ignores them).
int64_t lane_shared_offset(const Fit& f, int64_t warp, int64_t mm, int64_t lane);
// Local element offset of register handle j of instruction mm.
int64_t handle_offset(const Fit& f, int64_t mm, int64_t j);

Outcome verify_fit(const CopyRequest& c);
CopyRequest parse_fit_request(const nlohmann::json& request);

}  // namespace ptxsim::verifiers::ldstmatrix
