#include "timing/classify.h"

#include <array>

namespace smemlab::timing {

namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string_view mnemonic(std::string_view text) {
  size_t space = text.find(' ');
  if (space != std::string_view::npos) text = text.substr(0, space);
  return text.substr(0, text.find('.'));
}

}  // namespace

Pipe pipe_of(std::string_view text) {
  std::string_view op = mnemonic(text);
  static constexpr std::array<std::string_view, 14> memory = {
      "ld",       "st",       "ldu", "atom", "red",  "cp",   "ldmatrix",
      "stmatrix", "prefetch", "tex", "tld4", "suld", "sust", "mbarrier"};
  for (std::string_view m : memory)
    if (op == m) return Pipe::Lsu;
  if (op == "mma" || op == "wgmma" || op == "wmma") return Pipe::Tensor;
  static constexpr std::array<std::string_view, 13> control = {
      "bra",   "bar", "barrier", "ret",       "exit",  "call",          "membar",
      "fence", "brx", "trap",    "nanosleep", "elect", "griddepcontrol"};
  for (std::string_view c : control)
    if (op == c) return Pipe::Control;
  static constexpr std::array<std::string_view, 8> sfu = {"ex2",   "lg2",  "sin",  "cos",
                                                          "rsqrt", "tanh", "sqrt", "rcp"};
  for (std::string_view s : sfu)
    if (op == s && has(text, ".approx")) return Pipe::Sfu;
  if (has(text, ".f64")) return Pipe::Fp64;
  // Float arithmetic (add.f32, fma.rn.f32, setp.lt.f32, half and bf16
  // forms) runs on the FP32 pipe; integer, logic, moves, shuffles and
  // conversions to integers on the integer pipe.
  if (op != "cvt" && (has(text, ".f32") || has(text, ".f16") || has(text, ".bf16")))
    return Pipe::Fp32;
  return Pipe::Int;
}

bool own_shared_access(std::string_view text) {
  std::string_view op = mnemonic(text);
  if (op == "ldmatrix" || op == "stmatrix") return true;
  const bool access = op == "ld" || op == "st" || op == "atom" || op == "red";
  return access && has(text, ".shared") && !has(text, "::cluster");
}

bool l1_cached_load(std::string_view text) {
  std::string_view op = mnemonic(text);
  return (op == "ld" || op == "ldu") && !has(text, ".cg") && !has(text, ".cv") &&
         !has(text, ".volatile");
}

namespace {

// The number after `key` at `at` ("m16" -> 16); 0 when none.
int shape_dim(std::string_view text, size_t at) {
  int v = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') v = v * 10 + (text[at++] - '0');
  return v;
}

}  // namespace

double tensor_fma(std::string_view text) {
  std::string_view op = mnemonic(text);
  if (op != "mma" && op != "wgmma" && op != "wmma") return 0;
  if (op == "wmma" && !has(text, ".mma")) return 0;  // wmma.load/store
  // The shape ".mMnNkK".
  size_t m = text.find(".m");
  while (m != std::string_view::npos &&
         !(m + 2 < text.size() && text[m + 2] >= '0' && text[m + 2] <= '9'))
    m = text.find(".m", m + 1);
  if (m == std::string_view::npos) return 0;
  size_t n = text.find('n', m + 2), k = text.find('k', m + 2);
  if (n == std::string_view::npos || k == std::string_view::npos) return 0;
  double fma = double(shape_dim(text, m + 2)) * shape_dim(text, n + 1) * shape_dim(text, k + 1);
  if (op == "wgmma") fma /= 4;  // one warpgroup instruction, executed by its 4 warps
  // Per-type rates relative to FP16 (H100 datasheet dense tensor TFLOPS:
  // FP16/BF16 989.4, TF32 494.7, FP8/INT8 1978.9, FP64 66.9).
  if (has(text, ".tf32")) return fma * 2;
  if (has(text, ".e4m3") || has(text, ".e5m2") || has(text, ".s8") || has(text, ".u8"))
    return fma / 2;
  if (has(text, ".f64")) return fma * (989.4 / 66.9);
  return fma;
}

bool block_barrier(std::string_view text) {
  return text.rfind("bar.sync", 0) == 0 || text.rfind("barrier.sync", 0) == 0 ||
         text.rfind("bar.red", 0) == 0;
}

}  // namespace smemlab::timing
