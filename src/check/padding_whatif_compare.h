// For padding_whatif_test only: whether a block counts its requests
// straight into a buffer the launch holds full (padding_whatif.cc,
// BlockPadding and IntoFull; on unless turned off here), so that a test can
// compare the counts both ways. Process-wide, read when a block's observer
// is made. (Kept out of padding_whatif.h, which most of the tool includes.)
#pragma once

namespace smemlab::check::detail {

void count_into_full_buffers(bool on);

}  // namespace smemlab::check::detail
