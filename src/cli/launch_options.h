// The launch flags of `smemlab run`, `analyze`, `check`, `report` and `fix`
// (FILE, --kernel/--grid/--block/--shared/--arg, nvcc pass-through, --threads,
// --budget, --quiet) on a CLI11 command; what they mean and how a launch is
// made ready from them is session/launch_spec.h. Also the long-run
// conveniences of those commands: a progress line on a terminal and Ctrl-C
// stopping cleanly (exit code 130, session/interrupt.h).
#pragma once

#include <CLI/CLI.hpp>

#include "session/interrupt.h"
#include "session/launch_spec.h"
#include "session/recipe_launch.h"

namespace smemlab::cli {

using session::apply_recipe;
using session::ArgSpec;
using session::demangle;
using session::LaunchOptions;
using session::parse_arg;
using session::parse_dim;
using session::prepare_args;
using session::prepare_input;
using session::Prepared;
using session::PreparedArgs;
using session::PreparedInput;
using session::resolve_kernel;
using session::scalar_bytes;
using session::UsageError;

// Registers FILE and the launch flags on `cmd`.
void add_launch_options(CLI::App* cmd, LaunchOptions& o);

using session::prepare_launch_with_progress;

// After a launch: when Ctrl-C was pressed, prints a line and throws
// ExitCode{kInterrupted}.
void stop_if_interrupted();

}  // namespace smemlab::cli
