// Which pipe (pipes.def) a PTX instruction issues to, from its text
// ("fma.rn.f32", "ld.shared.v4.f32"): the counts are of PTX instructions,
// and ptxas maps most of them 1:1 onto SASS of the same pipe.
#pragma once

#include <string_view>

#include "timing/model.h"

namespace smemlab::timing {

Pipe pipe_of(std::string_view ptx_text);

}  // namespace smemlab::timing
