// The what-if data of `smemlab fix -- APP` crossing a process boundary: the
// emulated driver (src/runtime/fix_hooks.cc) records the shared accesses of
// each selected launch of the kernel and appends them, with the launch's
// configuration, to a binary file; the smemlab process reads them back as
// SharedAccess records (typed data, no text parsed back). Also the snapshot
// of device memory after each such launch (hashes of fixed-size chunks per
// allocation), which the proof compares between the original and the
// rewritten run. Both files are little-endian host layout, read and written
// by the same build.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "fix/whatif.h"

namespace smemlab::fix {

struct LogError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One recorded launch of the kernel.
struct LoggedLaunch {
  uint64_t index = 0;          // the program's launch number (from 0, all kernels)
  std::string kernel;          // mangled
  std::string module;          // the driver's module name ("./app (fatbin 0)")
  uint32_t module_serial = 0;  // which module PTX file (record path + ".N.ptx")
  uint32_t ptx_sm = 0;         // the PTX's target (compute_XX) the module was built for
  emu::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<SharedAccess> accesses;  // instr left null (the reader resolves pc)
};

void append_launch(const std::string& path, const LoggedLaunch& launch);
// Every launch in the file, in order; throws LogError on a short or foreign file.
std::vector<LoggedLaunch> read_launches(const std::string& path);

// Device memory after one launch: per allocation (identified by the order
// the program made them in, or a __device__ variable's name), its size and
// a hash per kSnapshotChunk bytes.
inline constexpr uint64_t kSnapshotChunk = 256;
struct RegionHash {
  std::string name;  // "allocation #3" or "__device__ variable NAME"
  uint64_t size = 0;
  std::vector<uint64_t> chunks;
};
struct Snapshot {
  uint64_t launch = 0;
  std::vector<RegionHash> regions;
};
RegionHash hash_region(const std::string& name, const uint8_t* data, uint64_t size);
void append_snapshot(const std::string& path, const Snapshot& s);
std::vector<Snapshot> read_snapshots(const std::string& path);
// "" when equal, else the first difference in words ("after launch 3,
// allocation #2 (4096 bytes) differs first within bytes [256, 512)").
std::string compare_snapshots(const std::vector<Snapshot>& want, const std::vector<Snapshot>& got);

}  // namespace smemlab::fix
