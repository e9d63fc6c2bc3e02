// `check --compare-schedules`: a launch run again under other warp
// schedules (emu/schedule.h), each from the device memory the launch
// started with, and what differs from the checked run: the bytes it leaves
// in device memory, the instructions it executes, or a stop (fault,
// deadlock) under one schedule only. A difference means the program's result
// depends on how warps are scheduled — a race that matters, on some GPU or
// some day, whatever one GPU's schedule happens to give.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "check/finding.h"
#include "emu/launch.h"

namespace smemlab::session {

// Device memory bigger than this is not compared (two copies are kept).
inline constexpr uint64_t kMaxCompareBytes = 1ull << 30;

// A copy of every allocation of device memory, restorable.
class DeviceSnapshot {
 public:
  // nullptr when the memory exceeds kMaxCompareBytes (*why says so).
  static std::unique_ptr<DeviceSnapshot> take(const emu::GlobalMemory& mem, std::string* why);
  void restore(emu::GlobalMemory& mem) const;
  // Bytes of `mem` that differ from this copy; the first such address and
  // both values of its byte.
  struct Difference {
    uint64_t bytes = 0;
    uint64_t address = 0;
    std::string allocation;  // its name ("" if none), size, and the offset in it
    uint64_t allocation_size = 0;
    uint64_t offset = 0;
    uint8_t mine = 0, theirs = 0;
  };
  Difference compare(const emu::GlobalMemory& mem) const;

 private:
  struct Copy {
    uint64_t base;
    std::string name;
    std::vector<uint8_t> bytes;
  };
  std::vector<Copy> copies_;
};

// A comparison of one launch (the checked run) with runs of it under other
// schedules. Made before the checked run: it keeps the device memory that
// run starts from (unless too big: nothing is compared then).
class ScheduleComparison {
 public:
  ScheduleComparison(const emu::GlobalMemory& mem, std::vector<emu::Schedule> others);
  // After the checked run (`checked`: its status; device memory holds its
  // result): runs `kernel` again under each other schedule from the memory
  // it started with, compares, and leaves the checked run's result in device
  // memory. One finding per schedule that differs ("schedule-dependent"), or
  // one saying why nothing could be compared.
  std::vector<check::Finding> compare(emu::Module& m, const std::string& kernel,
                                      const emu::LaunchConfig& cfg,
                                      const std::vector<emu::ArgBytes>& args,
                                      const emu::LaunchStatus& checked) const;

 private:
  std::vector<emu::Schedule> others_;
  std::unique_ptr<DeviceSnapshot> before_;
  std::string not_taken_;  // why there is no before_
};

// "serial,random:1" -> schedules; nullopt-like empty + *error for a bad one.
std::vector<emu::Schedule> parse_schedule_list(const std::string& text, std::string* error);

}  // namespace smemlab::session
