#include "runtime/static_libraries.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
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

// The names of the functions the executable defines itself (.symtab; a
// stripped executable has none, and its library kernels are then named by
// the no-PTX error at their launch instead).
std::vector<std::string> defined_functions(const std::vector<char>& f) {
  std::vector<std::string> out;
  if (f.size() < sizeof(Elf64_Ehdr) || std::memcmp(f.data(), ELFMAG, SELFMAG) != 0 ||
      f[EI_CLASS] != ELFCLASS64)
    return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, f.data(), sizeof eh);
  auto section = [&](size_t i) {
    Elf64_Shdr sh{};
    size_t off = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (off + sizeof sh <= f.size()) std::memcpy(&sh, f.data() + off, sizeof sh);
    return sh;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sym = section(i);
    if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr str = section(sym.sh_link);
    for (size_t off = sym.sh_offset; off + sizeof(Elf64_Sym) <= sym.sh_offset + sym.sh_size &&
                                     off + sizeof(Elf64_Sym) <= f.size();
         off += sizeof(Elf64_Sym)) {
      Elf64_Sym s;
      std::memcpy(&s, f.data() + off, sizeof s);
      if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC) continue;
      size_t name = str.sh_offset + s.st_name;
      if (name < f.size())
        out.emplace_back(f.data() + name, strnlen(f.data() + name, f.size() - name));
    }
  }
  return out;
}

}  // namespace

void check_static_libraries(Driver& d) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::vector<char> f((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> defined = defined_functions(f);
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
