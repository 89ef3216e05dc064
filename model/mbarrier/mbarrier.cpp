#include "model/mbarrier/mbarrier.h"

namespace ptxsim::model {

const char* Mbarrier::describe(Error e) {
  switch (e) {
    case Error::None: return "no error";
    case Error::Uninitialized: return "the object is not an initialised mbarrier";
    case Error::AlreadyInitialized: return "mbarrier.init of a live mbarrier (mbarrier.inval it first)";
    case Error::CountOutOfRange: return "arrival count out of the range 1..1048575";
    case Error::TxOutOfRange: return "tx-count out of the range -1048575..1048575";
    case Error::NoCompleteCompleted: return "an arrive with .noComplete completed the phase";
    case Error::StaleToken: return "the state token names neither the current nor the preceding phase";
  }
  return "?";
}

Mbarrier::Error Mbarrier::init(int64_t count) {
  if (live_) return Error::AlreadyInitialized;
  if (count < 1 || count > kMaxCount) return Error::CountOutOfRange;
  live_ = true;
  phase_ = 0;
  pending_ = expected_ = count;
  tx_ = 0;
  return Error::None;
}

Mbarrier::Error Mbarrier::inval() {
  if (!live_) return Error::Uninitialized;
  live_ = false;
  return Error::None;
}

bool Mbarrier::try_complete() {
  if (pending_ != 0 || tx_ != 0) return false;
  ++phase_;
  pending_ = expected_;
  return true;
}

Mbarrier::ArriveResult Mbarrier::arrive(int64_t count, int64_t tx, bool no_complete, bool drop) {
  ArriveResult r;
  if (!live_) {
    r.error = Error::Uninitialized;
    return r;
  }
  if (count < 1 || count > kMaxCount || count > pending_ || (drop && count > expected_)) {
    r.error = Error::CountOutOfRange;
    return r;
  }
  if (tx) {
    if (tx_ + tx > kMaxTx || tx_ + tx < -kMaxTx) {
      r.error = Error::TxOutOfRange;
      return r;
    }
    tx_ += tx;
  }
  r.token = Token::make(phase_, uint32_t(pending_));
  if (drop) expected_ -= count;
  pending_ -= count;
  r.completed = try_complete();
  if (r.completed && no_complete) r.error = Error::NoCompleteCompleted;
  return r;
}

Mbarrier::Error Mbarrier::add_pending(int64_t n) {
  if (!live_) return Error::Uninitialized;
  if (n < 1 || pending_ + n > kMaxCount) return Error::CountOutOfRange;
  pending_ += n;
  return Error::None;
}

Mbarrier::Error Mbarrier::expect_tx(int64_t n) {
  if (!live_) return Error::Uninitialized;
  if (tx_ + n > kMaxTx || tx_ + n < -kMaxTx) return Error::TxOutOfRange;
  tx_ += n;
  return Error::None;
}

Mbarrier::ArriveResult Mbarrier::complete_tx(int64_t n) {
  ArriveResult r;
  if (!live_) {
    r.error = Error::Uninitialized;
    return r;
  }
  if (tx_ - n > kMaxTx || tx_ - n < -kMaxTx) {
    r.error = Error::TxOutOfRange;
    return r;
  }
  tx_ -= n;
  r.completed = try_complete();
  return r;
}

bool Mbarrier::wait_token(uint64_t token, Error* err) const {
  *err = live_ ? Error::None : Error::Uninitialized;
  uint32_t p = Token::phase(token);
  if (p == phase_) return false;
  if (p + 1 == phase_) return true;
  if (live_) *err = Error::StaleToken;
  return false;
}

}  // namespace ptxsim::model
