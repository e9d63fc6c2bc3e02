#include "cli/bank_input.h"

#include <fmt/core.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/commands.h"

namespace smemlab::cli {

void usage_error(const std::string& message) {
  fmt::print(stderr, "smemlab: error: {}\n", message);
  throw ExitCode{kUsage};
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

std::optional<uint64_t> parse_number(std::string_view text) {
  std::string_view s = trim(text);
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

uint32_t parse_mask(std::string_view text) {
  std::optional<uint64_t> v = parse_number(text);
  if (!v)
    throw InputError("mask", "'" + std::string(text) + "' is not a number (hex 0x... or decimal)");
  if (*v > 0xffffffffu)
    throw InputError("mask", "'" + std::string(text) + "' does not fit in 32 lanes");
  return static_cast<uint32_t>(*v);
}

uint32_t parse_mask_option(std::string_view text) {
  try {
    return parse_mask(text);
  } catch (const InputError& e) {
    usage_error(std::string("--mask: ") + e.what());
  }
}

bank::Request make_request(bank::Op op, std::string_view width, std::optional<uint32_t> mask,
                           std::string_view addresses) {
  bank::Request r;
  r.op = op;
  std::optional<uint64_t> w = parse_number(width);
  if (!w || (*w != 1 && *w != 2 && *w != 4 && *w != 8 && *w != 16))
    throw InputError("width",
                     "'" + std::string(width) + "' is not an access width (1, 2, 4, 8 or 16)");
  r.width = static_cast<unsigned>(*w);

  std::vector<std::string_view> parts = split(addresses, ',');
  if (trim(addresses).empty()) throw InputError("addresses", "no address given");
  if (parts.size() > 32)
    throw InputError("addresses",
                     fmt::format("{} addresses given; a warp has 32 lanes", parts.size()));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<uint64_t> a = parse_number(parts[i]);
    if (!a)
      throw InputError("addresses",
                       fmt::format("lane {}: '{}' is not a byte address", i, trim(parts[i])));
    // Shared memory is a 32-bit window (as for the expression path).
    if (*a > 0xffffffffu)
      throw InputError("addresses",
                       fmt::format("lane {}: address {} is beyond the 32-bit shared memory window",
                                   i, *a));
    if (*a % r.width != 0)
      throw InputError("addresses", fmt::format("lane {}: address {} is not aligned to the access "
                                                "width of {} bytes",
                                                i, *a, r.width));
    r.addr[i] = *a;
  }
  uint32_t listed = parts.size() == 32 ? 0xffffffffu : (1u << parts.size()) - 1u;
  r.mask = mask.value_or(listed);
  if (uint32_t extra = r.mask & ~listed)
    throw InputError("mask", fmt::format("0x{:08x} activates lane {} but only {} address{} given",
                                         r.mask, std::countr_zero(extra), parts.size(),
                                         parts.size() == 1 ? " is" : "es are"));
  return r;
}

void run_batch(const std::string& path, const bank::Model& model) {
  std::ifstream in(path);
  if (!in) usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  auto fail = [&](size_t line, const std::string& msg) {
    usage_error(fmt::format("{}:{}: {}", path, line, msg));
  };

  std::string text;
  std::string rows;
  size_t line_no = 0;
  std::vector<std::string> header;
  int col_op = -1, col_width = -1, col_mask = -1, col_addr = -1, col_name = -1;
  while (std::getline(in, text)) {
    ++line_no;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (trim(text).empty() || text.front() == '#') continue;
    std::vector<std::string_view> fields = split(text, '\t');
    if (header.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) {
        std::string name(trim(fields[i]));
        int idx = static_cast<int>(i);
        if (name == "op") col_op = idx;
        if (name == "width") col_width = idx;
        if (name == "mask") col_mask = idx;
        if (name == "addresses") col_addr = idx;
        if (name == "name") col_name = idx;
        header.push_back(name);
      }
      for (auto [col, name] : {std::pair{col_op, "op"},
                               {col_width, "width"},
                               {col_mask, "mask"},
                               {col_addr, "addresses"}})
        if (col < 0)
          fail(line_no, fmt::format("the header has no '{}' column (required: op, width, mask, "
                                    "addresses; columns are separated by tabs)",
                                    name));
      continue;
    }
    if (fields.size() != header.size())
      fail(line_no, fmt::format("{} tab-separated fields, but the header has {}", fields.size(),
                                header.size()));
    bank::Request r;
    try {
      bank::Op op;
      try {
        op = bank::parse_op(trim(fields[col_op]));
      } catch (const bank::Error& e) {
        throw InputError("op", e.what());
      }
      r = make_request(op, fields[col_width], parse_mask(fields[col_mask]), fields[col_addr]);
    } catch (const InputError& e) {
      fail(line_no, fmt::format("column '{}': {}", e.field, e.what()));
    }
    bank::Result res;
    try {
      res = model.evaluate(r);
    } catch (const bank::Error& e) {
      fail(line_no, e.what());
    }
    nlohmann::ordered_json j;
    j["line"] = line_no;
    if (col_name >= 0) j["name"] = std::string(trim(fields[col_name]));
    j["arch"] = model.name();
    j["op"] = bank::op_name(r.op);
    j["width"] = r.width;
    j["mask"] = fmt::format("0x{:08x}", r.mask);
    j["wavefronts"] = res.wavefronts;
    j["ideal"] = res.ideal;
    j["bank_conflicts"] = res.bank_conflicts;
    j["ways"] = res.ways;
    j["worst_wavefronts"] = res.worst_wavefronts;
    // A name that is not UTF-8 is shown with U+FFFD, not a JSON exception.
    rows += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n';
  }
  if (header.empty())
    fail(line_no ? line_no : 1, "no header line (expected op, width, mask, addresses)");
  // Printed only once every row is known good: a bad file gives no partial output.
  fmt::print("{}", rows);
}

}  // namespace smemlab::cli
