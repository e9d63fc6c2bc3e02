#include "check/hazards.h"

namespace smemlab::check::detail {

void Hazards::flush_uninitialized() {
  for (const auto& [byte, r] : pending_uninit_)
    out_.report(FindingKind::Uninitialized, Severity::Error,
                fmt::format("shared read of byte {} that no thread of block {} has written", byte,
                            dim_text(s_.block)),
                r.instr, r.thread, nullptr, 0, role(r.op));
  pending_uninit_.clear();
}

// `thread` executes a CAS on `byte`: a plain read it made of the byte
// earlier in this barrier epoch (recorded in the shadow, or held back as
// the read side of a RAW with an atomic) is a CAS loop's read.
// The CAS subsumes the read: the slot becomes the CAS's atomic read, free
// for a later plain read of the byte that may race.
void Hazards::validate_cas_reads(Shadow& s, const emu::InstrInfo* cas, emu::Space space,
                                 uint32_t thread, uint64_t byte) {
  if (s.read && s.r_epoch == s_.epoch) {
    if (s.r_thread == thread && !s.r_atomic) {
      out_.validated.insert(s.r_instr);
      s.r_atomic = true;
      s.r_instr = cas;
    }
    if (s.r2 && s.r2_thread == thread && !s.r2_atomic) {
      out_.validated.insert(s.r2_instr);
      s.r2_atomic = true;
      s.r2_instr = cas;
    }
  }
  if (raw_reads_.empty()) return;
  auto it = raw_reads_.find(std::make_tuple(space, thread, byte));
  if (it == raw_reads_.end()) return;
  out_.validated.insert(it->second);
  raw_reads_.erase(it);
}

}  // namespace smemlab::check::detail
