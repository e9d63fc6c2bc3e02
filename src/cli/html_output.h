// Writing `--html FILE` pages for analyze, check and report (the pages
// themselves are made in src/report/html.cc).
#pragma once

#include <string>

namespace smemlab::cli {

// Writes `page` to `path` and says so on stderr; throws UsageError when the
// file cannot be written.
void write_html(const std::string& path, const std::string& page);

}  // namespace smemlab::cli
