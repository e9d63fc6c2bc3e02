#include "cli/html_output.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "cli/launch_options.h"

namespace smemlab::cli {

void write_html(const std::string& path, const std::string& page) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << page;
  if (!out || !out.flush())
    throw UsageError(fmt::format("--html {}: cannot write: {}", path, std::strerror(errno)));
  fmt::print(stderr, "smemlab: wrote {} ({} KiB)\n", path, (page.size() + 1023) / 1024);
}

}  // namespace smemlab::cli
