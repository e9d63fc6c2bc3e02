// cudart 13 asks the driver to prove itself before first use: a private
// table whose one function answers with a keyed hash of (driver version,
// request version, process and thread id, the addresses of the cudart
// interface table and of the answering function, the time) and every
// device's UUID and PCI location. The hash is HMAC (RFC 2104) over MD2
// (RFC 1319) with a fixed 16-byte key; the layout was described by public
// driver-replacement projects and confirmed by cudart accepting it.
#pragma once

#include <cstdint>

namespace smemlab::runtime {

struct IntegrityInput {
  uint32_t driver_version, version, pid, tid;
  const void *cudart_table, *integrity_table, *function;
  uint64_t unix_seconds;
};
struct IntegrityDevice {
  unsigned char uuid[16];
  int32_t pci_domain, pci_bus, pci_device;
};

// HMAC-MD2 of input followed by `devices`.
void integrity_hash(const IntegrityInput& input, const IntegrityDevice* devices, int n,
                    uint64_t result[2]);

}  // namespace smemlab::runtime
