// Source locations from `.file` / `.loc` directives. A `.loc` with
// `inlined_at F L C` names the call site; nvcc writes the call site's own
// chain in an earlier `.loc` with exactly that location, so the chain is
// rebuilt by looking that one up. Line 0 marks compiler-generated code.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace smemlab::ptx {

struct SourceLoc {
  int file = 0;
  int line = 0;
  int col = 0;
  int inlined_at = -1;   // index of the call site's SourceLoc, -1 if none
  std::string function;  // function_name label (".debug_str" string) if inlined
};

class LineTable {
 public:
  // Adds a .loc; returns its index. `site` is (file, line, col) of inlined_at.
  int add(int file, int line, int col, const std::string& function, bool has_site, int sf, int sl,
          int sc);
  void add_file(int index, std::string path) { files_[index] = std::move(path); }
  // Called at the start of each function body: inlined locations are only
  // looked up within one function.
  void begin_function() { last_inlined_.clear(); }
  const SourceLoc& at(int i) const { return locs_[static_cast<size_t>(i)]; }
  size_t size() const { return locs_.size(); }
  const std::string& file(int index) const;
  // The chain from the innermost location outwards (call sites last).
  std::vector<const SourceLoc*> chain(int i) const;
  // "file:line" of the outermost location (the kernel's own file), or "" for none.
  std::string describe(int i) const;
  const std::map<int, std::string>& files() const { return files_; }
  // Appends another module's table (ptx/link.h): its file indices move past
  // this table's, its locations after these. Returns how far its location
  // indices moved (add it to the instructions' `loc`).
  int append(const LineTable& other);

 private:
  std::vector<SourceLoc> locs_;
  std::map<int, std::string> files_;
  std::map<std::tuple<int, int, int>, int> last_inlined_;  // (f,l,c) -> latest inlined loc
  std::map<std::tuple<int, int, int, int>, int> dedup_;
};

}  // namespace smemlab::ptx
