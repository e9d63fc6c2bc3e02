#include "runtime/static_libraries.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/driver.h"

namespace smemlab::runtime {
namespace {

struct Library {
  const char* symbol;  // an entry point every program of the library calls
  const char* name;
  const char* static_flag;
  const char* shared_flag;
};
constexpr Library kLibraries[] = {
    {"cublasCreate_v2", "cuBLAS", "-lcublas_static", "-lcublas"},
    {"cublasLtCreate", "cuBLASLt", "-lcublasLt_static", "-lcublasLt"},
    {"cufftCreate", "cuFFT", "-lcufft_static", "-lcufft"},
    {"cufftPlan1d", "cuFFT", "-lcufft_static", "-lcufft"},
    {"curandCreateGenerator", "cuRAND", "-lcurand_static", "-lcurand"},
};

// Bytes [off, off + n) of the file, or empty past its end.
std::vector<char> read_at(std::ifstream& in, uint64_t off, uint64_t n) {
  std::vector<char> out(n);
  in.clear();
  in.seekg(std::streamoff(off));
  if (!in.read(out.data(), std::streamsize(n))) out.clear();
  return out;
}

// The names of the functions the executable defines itself (.symtab; a
// stripped executable has none, and its library kernels are then named by
// the no-PTX error at their launch instead). Reads the headers and the
// symbol and string tables only: such an executable can be hundreds of MB.
std::vector<std::string> defined_functions(std::ifstream& in) {
  std::vector<std::string> out;
  std::vector<char> head = read_at(in, 0, sizeof(Elf64_Ehdr));
  if (head.empty() || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0 ||
      head[EI_CLASS] != ELFCLASS64)
    return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, head.data(), sizeof eh);
  std::vector<char> shs = read_at(in, eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr));
  if (shs.empty()) return out;
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, shs.data() + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sym = section(i);
    if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr str = section(sym.sh_link);
    std::vector<char> syms = read_at(in, sym.sh_offset, sym.sh_size),
                      strs = read_at(in, str.sh_offset, str.sh_size);
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= syms.size(); off += sizeof(Elf64_Sym)) {
      Elf64_Sym s;
      std::memcpy(&s, syms.data() + off, sizeof s);
      if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC ||
          s.st_name >= strs.size())
        continue;
      out.emplace_back(strs.data() + s.st_name,
                       strnlen(strs.data() + s.st_name, strs.size() - s.st_name));
    }
  }
  return out;
}

}  // namespace

void check_static_libraries(Driver& d) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::vector<std::string> defined = defined_functions(in);
  for (const Library& lib : kLibraries)
    for (const std::string& name : defined)
      if (name == lib.symbol && d.once(fmt::format("static:{}", lib.name)))
        d.error_line(fmt::format(
            "the program links {} statically ({}: its kernels are SASS only, which smemlab cannot "
            "emulate, and smemlab's own {} cannot stand in for a library inside the executable); "
            "link it with {} instead",
            lib.name, lib.static_flag, lib.name, lib.shared_flag));
}

}  // namespace smemlab::runtime
