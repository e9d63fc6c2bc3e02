// Host threads that run an ordinary launch's blocks, kept from one launch to
// the next. Starting a thread costs tens of microseconds, and a launch of
// short blocks paid that for every helper every time (a 1,024-block
// transpose takes about 1.4 ms on 16 threads); program mode makes hundreds of
// launches. Cooperative launches still start one thread per block: their
// blocks must all be resident at once and could not wait in this queue.
#pragma once

#include <functional>

namespace smemlab::emu {

// Runs `job` on up to `helpers` pool threads and on the calling thread at the
// same time, and returns when every copy has returned (the job may use the
// caller's stack). Fewer helpers run when the pool cannot grow (no threads
// to be had); the job must be written so that any number of copies, one
// included, finishes the work. An exception from the caller's copy is
// rethrown after the helpers' copies have returned; the job must not let one
// escape on a helper (as with std::thread, that ends the process).
void run_with_helpers(unsigned helpers, const std::function<void()>& job);

}  // namespace smemlab::emu
