#include "check/defect_state.h"

namespace smemlab::check::detail {

void BlockFindings::report(FindingKind kind, Severity sev, const std::string& msg,
                           const emu::InstrInfo* instr, uint32_t thread,
                           const emu::InstrInfo* other, uint32_t other_thread, const char* role_a,
                           const char* role_b, const emu::InstrInfo* plain_read) {
  auto key = std::make_tuple(kind, instr, other, std::string(role_a),
                             other ? std::string(role_b) : std::string());
  if (plain_read) {
    auto [it, fresh] = deferred_seen_.try_emplace(key, deferred.size());
    if (!fresh) {
      ++deferred[it->second].second.count;
      return;
    }
  } else if (instr) {  // without an instruction the message tells findings apart
    auto [it, fresh] = seen_.try_emplace(std::move(key), findings.size());
    if (!fresh) {
      ++findings[it->second].count;
      return;
    }
  }
  Finding f;
  f.kind = kind;
  f.severity = sev;
  f.message = msg;
  if (other) f.involved.push_back(involved(role_b, s_.kernel, other, s_.block, other_thread));
  f.involved.push_back(involved(role_a, s_.kernel, instr, s_.block, thread));
  f.where = f.involved.back().where;
  if (plain_read)
    deferred.emplace_back(plain_read, std::move(f));
  else
    findings.push_back(std::move(f));
}

}  // namespace smemlab::check::detail
