// Input handling shared by the modes of `smemlab bank`: numbers, masks and
// address lists as users type them, and the --batch TSV reader. Errors say
// which field (option or TSV column) was wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bank/bank.h"

namespace smemlab::cli {

// Prints "smemlab: error: MESSAGE" and ends with exit status kUsage.
[[noreturn]] void usage_error(const std::string& message);

// A bad value in one field: `field` is "width", "mask", "addresses" or "op".
struct InputError : std::runtime_error {
  InputError(std::string f, const std::string& message)
      : std::runtime_error(message), field(std::move(f)) {}
  std::string field;
};

// Decimal or 0x hex, surrounding spaces allowed; nullopt if not a number.
std::optional<uint64_t> parse_number(std::string_view text);

// A 32-bit lane mask, hex or decimal; throws InputError("mask", ...).
uint32_t parse_mask(std::string_view text);
// The same for --mask, ending with a usage error.
uint32_t parse_mask_option(std::string_view text);

// A request from its textual parts. `addresses` lists byte addresses of lanes
// 0, 1, ...; fewer than 32 leave the remaining lanes inactive (a mask that
// activates one of them is an error). Without `mask` every listed lane is
// active. Throws InputError naming the field.
bank::Request make_request(bank::Op op, std::string_view width, std::optional<uint32_t> mask,
                           std::string_view addresses);

// --batch: evaluates every data row of the TSV `path` with `model` and prints
// one JSON object per row (JSON lines). A bad row ends the run with a usage
// error naming PATH:LINE and the column.
void run_batch(const std::string& path, const bank::Model& model);

}  // namespace smemlab::cli
