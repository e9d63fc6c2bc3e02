// `smemlab bank`: what one shared-memory access costs, per warp of a block,
// from an index expression over a declared array, from explicit lane
// addresses, or for every row of a TSV file. Parsing of expressions lives in
// src/expr, the cost model in src/bank; this file turns options into warp
// requests (bank_input.h parses the raw values) and bank_report.h prints them.
#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "bank/bank_svg.h"
#include "cli/bank_input.h"
#include "cli/bank_report.h"
#include "cli/commands.h"
#include "expr/expr.h"

namespace smemlab::cli {
namespace {

struct Options {
  std::string expression;
  std::string decl;
  std::string block = "32";
  std::vector<std::string> lets;
  std::string addresses;
  std::string width;
  std::string mask;
  std::string op = "load";
  std::string arch = "sm_90";
  unsigned bank_mode = 4;
  std::string batch;
  bool json = false;
  std::string svg;  // write the costliest warp's bank map here
};

// "expression:1:12: expected ']'" with the text and a caret under the column.
[[noreturn]] void expr_error(std::string_view source, std::string_view text, const expr::Error& e) {
  fmt::print(stderr, "smemlab: error: {}:1:{}: {}\n", source, e.column(), e.what());
  fmt::print(stderr, "  {}\n", text);
  if (e.column() > 0) fmt::print(stderr, "  {}^\n", std::string(e.column() - 1, ' '));
  throw ExitCode{kUsage};
}

void parse_block(const std::string& text, unsigned (&block)[3]) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == ',' || text[i] == 'x') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  if (parts.size() > 3) usage_error("--block '" + text + "': at most 3 dimensions (x,y,z)");
  static constexpr unsigned kMax[3] = {1024, 1024, 64};
  uint64_t threads = 1;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<uint64_t> v = parse_number(parts[i]);
    if (!v || *v == 0 || *v > kMax[i])
      usage_error(fmt::format("--block '{}': dimension {} must be a number from 1 to {}", text,
                              "xyz"[i], kMax[i]));
    block[i] = static_cast<unsigned>(*v);
    threads *= *v;
  }
  if (threads > 1024)
    usage_error(
        fmt::format("--block '{}' has {} threads; CUDA blocks have at most 1024", text, threads));
}

// Requests of every warp of the block for `expression` over `--decl`.
std::vector<Warp> warps_from_expression(const Options& o, bank::Op op,
                                        std::optional<uint32_t> user_mask, Source& src) {
  src.mode = "expression";
  src.expression = o.expression;
  if (o.decl.empty())
    usage_error("an expression needs the array's declaration, e.g. --decl 'int tile[32][32]'");
  for (const std::string& let : o.lets) {
    try {
      auto [name, value] = expr::parse_let(let, src.vars);
      src.vars[name] = value;
    } catch (const expr::Error& e) {
      expr_error("let", let, e);
    }
  }
  try {
    src.decl = expr::parse_decl(o.decl, src.vars);
  } catch (const expr::Error& e) {
    expr_error("decl", o.decl, e);
  }
  parse_block(o.block, src.block);

  std::optional<expr::Access> access;
  try {
    access = expr::Access::parse(o.expression, *src.decl, src.vars);
  } catch (const expr::Error& e) {
    expr_error("expression", o.expression, e);
  }
  const unsigned bx = src.block[0], by = src.block[1], bz = src.block[2];
  const uint64_t threads = uint64_t{bx} * by * bz;
  std::vector<Warp> warps;
  for (uint64_t first = 0; first < threads; first += 32) {
    Warp w;
    w.index = static_cast<unsigned>(first / 32);
    w.first_tid = first;
    w.threads = static_cast<unsigned>(std::min<uint64_t>(32, threads - first));
    w.request.op = op;
    w.request.width = src.decl->elem_size;
    uint32_t present = w.threads == 32 ? 0xffffffffu : (1u << w.threads) - 1u;
    w.request.mask = present & user_mask.value_or(0xffffffffu);
    for (unsigned lane = 0; lane < w.threads; ++lane) {
      if (!(w.request.mask >> lane & 1u)) continue;
      uint64_t tid = first + lane;
      expr::Thread t{static_cast<unsigned>(tid % bx),
                     static_cast<unsigned>(tid / bx % by),
                     static_cast<unsigned>(tid / (uint64_t{bx} * by)),
                     bx,
                     by,
                     bz};
      try {
        w.request.addr[lane] = access->offset(t);
      } catch (const expr::Error& e) {
        expr_error("expression", o.expression, e);
      }
    }
    warps.push_back(w);
  }
  return warps;
}

// The costliest warp's request on each model, as one SVG file.
void write_svg(const std::string& path, const std::vector<std::unique_ptr<bank::Model>>& models,
               const std::vector<Warp>& warps, const Source& src) {
  std::vector<bank::Figure> figures;
  for (const auto& m : models) {
    std::optional<bank::Figure> best;
    for (const Warp& w : warps) {
      bank::Result r;
      try {
        r = m->evaluate(w.request);
      } catch (const bank::Error&) {
        continue;  // the text/JSON report already names the refusal
      }
      if (best && r.wavefronts <= best->result.wavefronts) continue;
      std::string what = src.mode == "expression" ? src.expression : "--addresses";
      best =
          bank::Figure{r, m->banks(),
                       warps.size() > 1 ? fmt::format("{} on {}, warp {}", what, m->name(), w.index)
                                        : fmt::format("{} on {}", what, m->name())};
    }
    if (best) figures.push_back(*best);
  }
  if (figures.empty()) usage_error("--svg: no model could evaluate the request");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << bank::bank_svg_document(figures);
  if (!out || !out.flush()) usage_error(fmt::format("--svg {}: cannot write", path));
}

void run(const Options& o) {
  int modes = !o.expression.empty() + !o.addresses.empty() + !o.batch.empty();
  if (modes == 0)
    usage_error("nothing to evaluate: give an expression (with --decl), --addresses or --batch");
  if (modes > 1) usage_error("give only one of: an expression, --addresses, --batch");
  if (o.arch == "all" && !o.batch.empty())
    usage_error("--batch evaluates one architecture; give --arch NAME, not all");

  std::vector<std::unique_ptr<bank::Model>> models;
  if (o.arch == "all") {
    models = bank::all_generations();
  } else {
    try {
      models.push_back(bank::make_model(o.arch, o.bank_mode));
    } catch (const bank::Error& e) {
      usage_error(std::string("--arch: ") + e.what());
    }
  }

  if (!o.batch.empty()) {
    run_batch(o.batch, *models.front());
    return;
  }

  bank::Op op{};
  try {
    op = bank::parse_op(o.op);
  } catch (const bank::Error& e) {
    usage_error(std::string("--op: ") + e.what());
  }
  std::optional<uint32_t> mask;
  if (!o.mask.empty()) mask = parse_mask_option(o.mask);

  Source src;
  std::vector<Warp> warps;
  if (!o.expression.empty()) {
    if (!o.width.empty())
      usage_error("--width is for --addresses; with an expression the element type gives it");
    warps = warps_from_expression(o, op, mask, src);
  } else {
    src.mode = "addresses";
    Warp w;
    try {
      w.request = make_request(op, o.width.empty() ? "4" : o.width, mask, o.addresses);
    } catch (const InputError& e) {
      usage_error("--" + e.field + ": " + e.what());
    }
    warps.push_back(w);
  }

  std::vector<ArchResult> results;
  for (const auto& m : models) results.push_back(evaluate(*m, warps));
  if (models.size() == 1 && !results.front().error.empty()) usage_error(results.front().error);

  print_report(src, warps, results, o.json);
  if (!o.svg.empty()) write_svg(o.svg, models, warps, src);
}

}  // namespace

void add_bank_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "bank", "Cost in wavefronts of a warp's shared-memory access, per GPU generation");
  cmd->footer(
      "Examples:\n"
      "  smemlab bank 'tile[threadIdx.x][threadIdx.y]' --decl 'int tile[32][32]' --block 32,32\n"
      "  smemlab bank 'tile[threadIdx.x][threadIdx.y]' --decl 'int tile[32][32]' --arch all\n"
      "  smemlab bank --addresses 0,8,16,24 --width 4 --op store\n"
      "  smemlab bank --batch patterns.tsv\n"
      "Exit status: 0 ok, 2 bad command line or input (message on stderr).");
  auto* expr_opt = cmd->add_option(
      "expression", o->expression,
      "Access to the declared array, e.g. 'tile[threadIdx.y][threadIdx.x]'. Integer arithmetic "
      "(+ - * / % << >> & | ^ ~, parentheses), threadIdx.x/y/z, blockDim.x/y/z, laneid, warpid, "
      "--let names");
  auto* decl = cmd->add_option("--decl", o->decl,
                               "The shared array, e.g. 'int tile[32][33]' or 'float4 v[N]' with "
                               "--let N=64; its element type (char, short, half, int, unsigned, "
                               "float, double, int2, float2, int4, float4, ...) gives the access "
                               "width");
  auto* block = cmd->add_option("--block", o->block,
                                "Block dimensions x[,y[,z]] (default 32); threads are numbered x "
                                "fastest and grouped into warps of 32");
  auto* let = cmd->add_option("--let", o->lets, "NAME=VALUE constant for the expression (repeat)");
  auto* addresses = cmd->add_option("--addresses", o->addresses,
                                    "Byte addresses of lanes 0, 1, ... (comma-separated, up to 32; "
                                    "lanes not given are inactive)");
  auto* width = cmd->add_option("--width", o->width,
                                "Bytes per lane for --addresses: 1, 2, 4, 8, 16 (default 4)");
  auto* mask = cmd->add_option("--mask", o->mask,
                               "Active lanes, hex (0x...) or decimal; with an expression it "
                               "applies to every warp (default: all lanes present)");
  auto* op = cmd->add_option("--op", o->op, "load, store or atomic (default load)");
  cmd->add_option("--arch", o->arch,
                  "sm_90 (default), sm_70..sm_90, sm_100, sm_120, sm_30..sm_37, sm_20, sm_21, "
                  "sm_10..sm_13, or 'all' for one row per generation");
  auto* mode = cmd->add_option("--bank-mode", o->bank_mode, "Kepler bank width in bytes: 4 or 8")
                   ->check(CLI::IsMember({4u, 8u}));
  auto* batch = cmd->add_option("--batch", o->batch,
                                "TSV file whose header names columns op, width, mask, addresses "
                                "(others ignored); prints one JSON object per row");
  cmd->add_flag("--json", o->json, "Print one JSON document instead of text");
  auto* svg = cmd->add_option("--svg", o->svg,
                              "also draw the costliest warp's bank map per model to FILE (SVG)");
  for (CLI::Option* opt : {expr_opt, decl, block, let, addresses, width, mask, op, svg})
    batch->excludes(opt);
  for (CLI::Option* opt : {decl, block, let}) addresses->excludes(opt);
  cmd->callback([o, mode] {
    if (o->arch == "all" && mode->count() > 0)
      usage_error("--arch all already shows both Kepler bank modes; --bank-mode needs one --arch");
    run(*o);
  });
}

}  // namespace smemlab::cli
