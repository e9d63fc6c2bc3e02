#include "session/schedule_compare.h"

#include <fmt/format.h>

#include <cstring>

namespace smemlab::session {
namespace {

std::string where(const DeviceSnapshot::Difference& d) {
  std::string name = d.allocation.empty() ? "" : " (" + d.allocation + ")";
  return fmt::format("address 0x{:x}, byte {} of the {}-byte allocation at 0x{:x}{}", d.address,
                     d.offset, d.allocation_size, d.address - d.offset, name);
}

check::Finding finding(std::string message, check::Severity severity) {
  check::Finding f;
  f.kind = check::FindingKind::ScheduleDependent;
  f.severity = severity;
  f.message = std::move(message);
  return f;
}

// Whether the kernel calls malloc/free: heap blocks a second run allocates
// could not be given back to the program's heap as they were.
bool uses_device_heap(const emu::Program& p) {
  for (const emu::Op& op : p.ops)
    if (op.code / 16 == emu::BUILTIN && (op.aux == emu::B_MALLOC || op.aux == emu::B_FREE))
      return true;
  return false;
}

}  // namespace

std::unique_ptr<DeviceSnapshot> DeviceSnapshot::take(const emu::GlobalMemory& mem,
                                                     std::string* why) {
  uint64_t total = 0;
  for (const auto& a : mem.allocations()) total += a->size;
  if (total > kMaxCompareBytes) {
    *why = fmt::format("device memory holds {} MiB, more than the {} MiB compared", total >> 20,
                       kMaxCompareBytes >> 20);
    return nullptr;
  }
  auto s = std::make_unique<DeviceSnapshot>();
  s->copies_.reserve(mem.allocations().size());
  for (const auto& a : mem.allocations())
    s->copies_.push_back({a->base, a->name, std::vector<uint8_t>(a->data, a->data + a->size)});
  return s;
}

void DeviceSnapshot::restore(emu::GlobalMemory& mem) const {
  for (const Copy& c : copies_)
    if (uint8_t* p = mem.translate(c.base, c.bytes.size()))
      std::memcpy(p, c.bytes.data(), c.bytes.size());
}

DeviceSnapshot::Difference DeviceSnapshot::compare(const emu::GlobalMemory& mem) const {
  Difference d;
  for (const Copy& c : copies_) {
    const uint8_t* p = mem.translate(c.base, c.bytes.size());
    if (!p || std::memcmp(p, c.bytes.data(), c.bytes.size()) == 0) continue;
    for (uint64_t i = 0; i < c.bytes.size(); ++i) {
      if (p[i] == c.bytes[i]) continue;
      if (d.bytes++ == 0) {
        d.address = c.base + i;
        d.allocation = c.name;
        d.allocation_size = c.bytes.size();
        d.offset = i;
        d.mine = c.bytes[i];
        d.theirs = p[i];
      }
    }
  }
  return d;
}

ScheduleComparison::ScheduleComparison(const emu::GlobalMemory& mem,
                                       std::vector<emu::Schedule> others)
    : others_(std::move(others)), before_(DeviceSnapshot::take(mem, &not_taken_)) {}

std::vector<check::Finding> ScheduleComparison::compare(emu::Module& m, const std::string& kernel,
                                                        const emu::LaunchConfig& cfg,
                                                        const std::vector<emu::ArgBytes>& args,
                                                        const emu::LaunchStatus& checked) const {
  emu::GlobalMemory& mem = m.device().memory();
  const std::string mine = emu::to_string(cfg.schedule);
  // Why nothing can be compared: the one place that says so.
  auto not_compared = [](const std::string& why) {
    return std::vector<check::Finding>{
        finding("schedules not compared: " + why, check::Severity::Warning)};
  };
  if (!before_) return not_compared(not_taken_);
  if (uses_device_heap(m.kernel(kernel)))
    return not_compared(
        "the kernel allocates from the device heap (malloc/new), which a second run would "
        "change");
  std::string why;
  std::unique_ptr<DeviceSnapshot> result = DeviceSnapshot::take(mem, &why);
  if (!result) return not_compared(why);
  std::vector<check::Finding> out;
  for (const emu::Schedule& s : others_) {
    if (s == cfg.schedule) continue;
    before_->restore(mem);
    emu::LaunchConfig alt = cfg;
    alt.schedule = s;
    alt.observer = nullptr;
    alt.printf_sink = [](const std::string&) {};  // the checked run printed
    alt.progress = {};
    // Its device-side launches are the checked run's: this run's are dropped.
    emu::DeviceRuntime dropped(m.ptx());
    alt.device_runtime = &dropped;
    emu::LaunchStatus st = emu::launch_raw(m, kernel, alt, args);
    dropped.take(m.device().memory().heap());
    const std::string theirs = emu::to_string(s);
    if (st.error && !checked.error) {
      out.push_back(finding(fmt::format("the launch stops under schedule {} but not under {}: {}",
                                        theirs, mine, st.error->what()),
                            check::Severity::Error));
      continue;
    }
    if (!st.error && checked.error) {
      out.push_back(
          finding(fmt::format("the launch stops under schedule {} but not under {}", mine, theirs),
                  check::Severity::Error));
      continue;
    }
    DeviceSnapshot::Difference d = result->compare(mem);
    if (d.bytes)
      out.push_back(finding(
          fmt::format("the launch's result depends on warp scheduling: {} byte{} of device "
                      "memory differ between schedules {} and {}; the first at {}: 0x{:02x} "
                      "under {}, 0x{:02x} under {}",
                      d.bytes, d.bytes == 1 ? "" : "s", mine, theirs, where(d), d.mine, mine,
                      d.theirs, theirs),
          check::Severity::Error));
    else if (st.lane_instructions != checked.lane_instructions)
      out.push_back(
          finding(fmt::format("the launch's control flow depends on warp scheduling: {} thread-"
                              "instructions under schedule {}, {} under {} (same memory result)",
                              checked.lane_instructions, mine, st.lane_instructions, theirs),
                  check::Severity::Warning));
  }
  result->restore(mem);
  return out;
}

std::vector<emu::Schedule> parse_schedule_list(const std::string& text, std::string* error) {
  std::vector<emu::Schedule> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    std::optional<emu::Schedule> s = emu::parse_schedule(item);
    if (!s) {
      *error = fmt::format("'{}' is no schedule (gpu, serial, random or random:SEED)", item);
      return {};
    }
    out.push_back(*s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace smemlab::session
