// What `smemlab fix` needs to know about a .cu file's shared arrays, read
// with a real C++/CUDA front end (libclang): each `__shared__` array's
// declaration (name, enclosing function, the extent expressions and their
// values where they are constant, the element size where the type is not
// dependent) and every subscript through it or through a pointer initialised
// from it, with byte ranges in the file for rewriting. The PTX only has byte
// sizes; the shape comes from here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace smemlab::fix {

// Bad input (unreadable file, libclang unable to parse at all).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Byte range [begin, end) in the main file.
struct Range {
  unsigned begin = 0, end = 0;
  bool operator==(const Range&) const = default;
};

struct Subscript {
  Range whole;               // tile[r][c]
  std::vector<Range> index;  // r, c: outermost first
  int line = 0;
  bool via_alias = false;     // through a pointer initialised from the array
  bool side_effects = false;  // an index modifies state or calls a function
  bool rewritable = true;     // spelled in the file itself (not in a macro)
  unsigned elem_bytes = 0;    // sizeof the element it names; 0 when dependent
};

// `base + E` (or `E + base`) where base is the array or a pointer
// initialised from it: a byte or element offset from the array's start, as
// a TMA tile's readers spell their addresses (`tile + (r * 128 + c * 4)`).
struct OffsetUse {
  Range offset;                // E
  int line = 0, end_line = 0;  // of the whole expression
  unsigned elem_bytes = 0;     // what E counts: sizeof(*base); 0 when dependent
  bool side_effects = false;
  bool rewritable = true;  // spelled in the file itself (not in a macro)
};

struct SourceArray {
  std::string name;
  std::string function;  // enclosing function, unqualified, without template arguments
  bool is_extern = false;
  int line = 0, column = 0;                           // of the declaration's name
  std::vector<Range> extents;                         // size expressions in source order
  std::vector<std::optional<int64_t>> extent_values;  // constant values where known
  std::optional<unsigned> elem_bytes;  // element size, where the type is not dependent
  // Element size of the pointers initialised from the array (`T* p =
  // reinterpret_cast<T*>(raw)`): their subscripts count in those elements.
  // nullopt when there is no alias or its pointee type is dependent.
  std::optional<unsigned> alias_elem_bytes;
  std::vector<Subscript> subscripts;
  std::vector<OffsetUse> offsets;
  // Uses that are neither subscripts nor alias initialisers (`tile + 4`,
  // passing `tile` on): a layout change cannot follow them; the proof decides.
  int other_uses = 0;
};

// The swizzle argument of a call that encodes a tiled tensor map: any call
// of 12 arguments whose 10th has the type CUtensorMapSwizzle, so that a call
// through a function pointer (cudaGetDriverEntryPoint's, a wrapper's) is
// found as well as cuTensorMapEncodeTiled itself.
struct SwizzleArgument {
  Range range;                   // the argument expression
  int line = 0, column = 0;      // of the argument
  std::string text;              // as spelled
  std::optional<int64_t> value;  // the CU_TENSOR_MAP_SWIZZLE_* value where constant
  bool rewritable = true;        // spelled in the file itself (not in a macro)
};

struct SourceModel {
  std::string path;
  std::string text;  // the file's bytes, as parsed
  std::vector<SourceArray> arrays;
  std::vector<SwizzleArgument> swizzle_arguments;  // in source order
  std::vector<std::string> diagnostics;            // front-end errors, "file:line:col: message"
};

// The CUDA toolkit whose headers the front end reads: $CUDA_PATH, $CUDA_HOME
// or /usr/local/cuda, the first with include/cuda_runtime.h; empty if none.
std::string cuda_toolkit();

// Parses `path` as CUDA, host side: with the toolkit's headers through
// clang's CUDA wrapper where cuda_toolkit() finds one, else with smemlab's
// prelude of CUDA keywords and built-ins. Throws Error when the file cannot
// be read or parsed at all; front-end errors that still leave an AST are kept
// in diagnostics (callers treat them as a failed parse).
SourceModel parse_source(const std::string& path, const std::vector<std::string>& include_dirs);

// 1-based line of a byte offset in text.
int line_of(const std::string& text, unsigned offset);

}  // namespace smemlab::fix
