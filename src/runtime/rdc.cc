#include "runtime/rdc.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace smemlab::runtime {
namespace {

constexpr uint32_t kRdcFatbinMagic = 0xBA55ED50;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The [address, size) of section `name` in the ELF image `elf` (as the file
// holds it), 0 size when absent.
bool find_section(const std::string& elf, const char* name, uint64_t* addr, uint64_t* size) {
  if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64)
    return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > elf.size() ||
      eh.e_shstrndx >= eh.e_shnum)
    return false;
  auto shdr = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof s);
    return s;
  };
  Elf64_Shdr strtab = shdr(eh.e_shstrndx);
  if (strtab.sh_offset + strtab.sh_size > elf.size()) return false;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s = shdr(i);
    if (s.sh_name >= strtab.sh_size) continue;
    const char* n = elf.data() + strtab.sh_offset + s.sh_name;
    if (std::strncmp(n, name, strtab.sh_size - s.sh_name) != 0) continue;
    *addr = s.sh_addr;
    *size = s.sh_size;
    return true;
  }
  return false;
}

// Whether the ELF image `elf` defines the symbol `name`.
bool defines_symbol(const std::string& elf, const char* name) {
  if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64)
    return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > elf.size())
    return false;
  auto shdr = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof s);
    return s;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sym = shdr(i);
    if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr str = shdr(sym.sh_link);
    if (sym.sh_offset + sym.sh_size > elf.size() || str.sh_offset + str.sh_size > elf.size())
      continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sym.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym e;
      std::memcpy(&e, elf.data() + sym.sh_offset + at, sizeof e);
      if (e.st_shndx == SHN_UNDEF || e.st_name >= str.sh_size) continue;
      const char* n = elf.data() + str.sh_offset + e.st_name;
      if (std::strncmp(n, name, str.sh_size - e.st_name) == 0) return true;
    }
  }
  return false;
}

}  // namespace

bool is_device_runtime(const std::vector<FatbinEntry>& unit) {
  for (const auto& e : unit)
    if (e.kind == FatbinEntry::kElf)
      return defines_symbol(sass_for(unit, e.sm), "__cudaCDP2LaunchDeviceV2");
  return false;
}

RdcUnits rdc_units(const void* image) {
  RdcUnits out;
  Dl_info info;
  link_map* lm = nullptr;
  if (!dladdr1(image, &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) || !lm) return out;
  // The main program's link map has an empty name: its file is /proc/self/exe.
  bool main_program = !lm->l_name || !*lm->l_name;
  out.object = main_program ? "/proc/self/exe" : lm->l_name;
  std::string elf = read_file(out.object);
  uint64_t addr = 0, size = 0;
  if (!find_section(elf, "__nv_relfatbin", &addr, &size) || size == 0) return out;
  // l_addr is the load bias (0 for a non-PIE executable, whose addresses are absolute).
  const auto* p = reinterpret_cast<const uint8_t*>(lm->l_addr + addr);
  for (uint64_t at = 0; at + 16 <= size;) {
    uint32_t magic;
    std::memcpy(&magic, p + at, 4);
    if (magic != kRdcFatbinMagic) {  // padding between units
      at += 8;
      continue;
    }
    uint16_t header;
    uint64_t entries;
    std::memcpy(&header, p + at + 6, 2);
    std::memcpy(&entries, p + at + 8, 8);
    if (entries > size - at) throw FatbinError("corrupt fatbin in __nv_relfatbin");
    out.fatbins.push_back(parse_fatbin(p + at));
    at += (header + entries + 7) & ~uint64_t{7};
  }
  return out;
}

}  // namespace smemlab::runtime
