// The mbarrier object of PTX §9.7.13.15: an 8-byte shared-memory object with a phase, a pending
// arrival count, an expected arrival count and a transaction count. A phase completes when both
// the pending arrivals and the tx-count reach zero; completing reloads pending from expected.
// This is the architectural state only; who arrived and who waits is the engine's business.
#pragma once
#include <cstdint>
#include <string>

namespace ptxsim::model {

class Mbarrier {
 public:
  // Valid ranges of the counters (PTX §9.7.13.15.2, layout v0).
  static constexpr int64_t kMaxCount = (1 << 20) - 1;
  static constexpr int64_t kMaxTx = (1 << 20) - 1;

  enum class Error : uint8_t {
    None,
    Uninitialized,        // operation other than init on an object that is not a live mbarrier
    AlreadyInitialized,   // init of a live object without inval first
    CountOutOfRange,      // init/arrive count outside 1..2^20-1, or pending would go below 0
    TxOutOfRange,         // tx-count would leave ±(2^20-1)
    NoCompleteCompleted,  // a .noComplete arrive completed the phase
    StaleToken,           // wait on a token neither of the current nor of the preceding phase
  };
  static const char* describe(Error e);

  // The opaque 64-bit state token an arrive returns: the phase number before the arrive in the
  // high word and the pending count before the arrive in the low 20 bits (for pending_count).
  struct Token {
    static uint64_t make(uint32_t phase, uint32_t pending) { return (uint64_t(phase) << 32) | pending; }
    static uint32_t phase(uint64_t t) { return uint32_t(t >> 32); }
    static uint32_t pending(uint64_t t) { return uint32_t(t & 0xFFFFF); }
  };

  struct ArriveResult {
    Error error = Error::None;
    bool completed = false;  // this operation completed the phase
    uint64_t token = 0;
  };

  bool live() const { return live_; }
  uint32_t phase() const { return phase_; }         // number of completed phases
  int64_t pending() const { return pending_; }
  int64_t expected() const { return expected_; }
  int64_t tx_count() const { return tx_; }

  Error init(int64_t count);
  Error inval();
  // arrive-on(count) with an optional expect-tx(tx) first; drop also lowers expected permanently.
  ArriveResult arrive(int64_t count, int64_t tx, bool no_complete, bool drop);
  // pending += n (cp.async.mbarrier.arrive without .noinc announces its later arrival this way).
  Error add_pending(int64_t n);
  // expect-tx(n): tx-count += n.
  Error expect_tx(int64_t n);
  // complete-tx(n): tx-count -= n; may complete the phase.
  ArriveResult complete_tx(int64_t n);
  // test_wait/try_wait: is the phase named by `token` complete? (current phase → false, the
  // preceding phase → true, anything else → StaleToken)
  bool wait_token(uint64_t token, Error* err) const;
  // .parity form: true iff the phase with parity `parity` has completed, i.e. the current phase's
  // parity differs from it.
  bool wait_parity(uint32_t parity) const { return (phase_ & 1) != (parity & 1); }

 private:
  bool try_complete();
  bool live_ = false;
  uint32_t phase_ = 0;
  int64_t pending_ = 0, expected_ = 0, tx_ = 0;
};

}  // namespace ptxsim::model
