#pragma once
/// The headless subcommands of `aclgraph-inspector`. Each takes its arguments (without the program
/// and subcommand names) and the streams to write to, and returns the process exit code:
/// 0 success, 1 bad input (the message names the file and place), 2 bad usage.
#include <iosfwd>
#include <string>
#include <vector>

namespace gui::cli {

/// Writes a synthetic LLaMA-like decoder scenario (engine/scenario/decoder_generator.h).
int generateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Runs TorchAir's reduce-overhead FX passes on a graph and reports what each changed.
int passesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Lists the pass stages of a TORCH_COMPILE_DEBUG folder, or diffs two of them.
int stagesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Inspects TorchAir compile caches: ls, show, readable, key.
int cacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int simulateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Imports files and folders into a project database (storage/importer.h).
int importCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Lists the simulation runs stored in a project database.
int runsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// `report INPUT... -o FILE.json|.md|.html|.pdf [--compare | --compare-set NAME=VALUE] [--title TEXT]`.
int reportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// `snapshot FILE [--json] [--device N] [-o FILE]`: per pool of a real memory snapshot its
/// segments, reserved, allocated and peak bytes, and the captured graph it belongs to
/// (snapshot_command.cpp; docs/snapshots.md).
int snapshotCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Writes a command's result to `out`, or to the file `outPath` when it is not empty; returns the
/// exit code (1 when the file cannot be written, with a message on `err`).
int writeResult(const std::string& text, const std::string& outPath, std::ostream& out, std::ostream& err);

/// Dispatches argv[1] to a subcommand. Returns -1 when argv names no subcommand (open the window).
int runSubcommand(int argc, char** argv, std::ostream& out, std::ostream& err);

} // namespace gui::cli
