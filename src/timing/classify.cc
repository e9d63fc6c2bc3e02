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

}  // namespace smemlab::timing
