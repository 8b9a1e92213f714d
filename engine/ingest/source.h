#pragma once
/// One owner of "what is this path?" (docs/DEVELOPER.md, "Ingest"). Every subcommand and the window
/// ask this module which kind of input a path is, so they accept the same things the same way, and a
/// new kind is added here once. The answer carries its evidence ("its first bytes are a pickle whose
/// first class is ...", "a folder holding TORCH_COMPILE_DEBUG's torchinductor/ layout"): nothing is
/// inferred silently.
///
/// Limits: a folder walk looks at most kMaxEntries entries and kMaxDepth levels (symbolic links are
/// not followed); only regular files are opened, at most kSniffBytes of each for its kind. A FIFO,
/// socket or device is refused with its path, never opened.
#include "engine/core/result.h"
#include "engine/readers/fx_reader.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace engine::ingest {

enum class SourceKind {
    FxGraph, ///< FX code as PyTorch prints it: print_readable(), print(gm.graph), fx_graph_readable.py, ...
    Scenario, ///< a scenario JSON (docs/scenario-format.md)
    TorchairModule, ///< TorchAir's generated module (its output_code.py, a cache's py_code)
    DebugDir, ///< a TORCH_COMPILE_DEBUG folder, TorchAir's layout or PyTorch's (torchinductor/), any level
    CacheFile, ///< one TorchAir compiled_module
    CacheDir, ///< a .torchair_cache tree (any level)
    MemorySnapshot, ///< a PyTorch / torch_npu memory snapshot pickle
    InductorCode, ///< Inductor's generated output_code.py
    TorchTrace, ///< a TORCH_TRACE structured log, or a folder of them (one per rank)
    Folder, ///< a folder holding inputs of several kinds: each member is a source of its own
    RunLog, ///< a job's log: TorchAir's / npugraph_ex's logger lines, PyTorch's TORCH_LOGS (run_log.h)
};
/// "fx_graph", "scenario", "torchair_module", "debug_dir", "compiled_module", "torchair_cache",
/// "memory_snapshot", "inductor_output_code", "torch_trace", "folder", "run_log" (the names stored in
/// projects).
const char* sourceKindName(SourceKind kind);

struct Detected {
    SourceKind kind = SourceKind::FxGraph;
    std::string evidence; ///< what told the kind, in words, for the user
};

/// A member of a Folder: a file or sub-folder that is an input on its own.
struct FolderMember {
    std::string path;
    Detected detected;
};

/// What a folder holds.
struct FolderContents {
    Detected detected; ///< the folder's kind as a whole; Folder when it holds several kinds
    std::vector<FolderMember> members; ///< Folder only: the inputs to read, in path order
    std::vector<std::string> skipped; ///< "path: why" for files below it that are no input we read
};

constexpr int kMaxDepth = 8;
constexpr size_t kMaxEntries = 100000;
constexpr size_t kSniffBytes = 64 << 10;

/// The kind of a file or folder. Errors name the path: missing, not a regular file or folder, empty,
/// binary data of no known kind, a folder with nothing we read.
Result<Detected> detectSource(const std::string& path);
/// A folder's kind, and for a Folder its members (each detected on its own).
Result<FolderContents> examineFolder(const std::string& path);

/// Regular files below `root` (symlinks not followed), relative paths sorted. Error when the walk
/// meets more than kMaxEntries entries.
Result<std::vector<std::filesystem::path>> walkFiles(const std::filesystem::path& root);

/// The content hash of a file (md5 of its bytes) or a folder (md5 over every regular file's relative
/// path, size and md5, in path order), and the bytes read. `tick` is told the bytes hashed of a file
/// every 16 MiB and cancels by returning false.
struct Content {
    std::string hash;
    uint64_t size = 0;
};
using HashTick = std::function<bool(uint64_t bytes)>;
Result<Content> contentHash(const std::string& path, const HashTick& tick = {});

/// The first `bytes` of a regular file ("" when it cannot be read).
std::string readHead(const std::string& path, size_t bytes = kSniffBytes);

/// The kind of a file from its name and first bytes alone (no folder context).
Result<Detected> detectFile(const std::string& path);

/// An FX graph file as its form reads: Inductor's fx_graph_runnable.py (its load_args give the
/// inputs' metadata; readers/fx_runnable.h), else readers::readFxFile (readable code, print(gm.graph)).
Result<readers::FxReadResult> readGraphFile(const std::string& path);
/// The same over text already read.
Result<readers::FxReadResult> readGraphText(std::string_view text, const std::string& path);

} // namespace engine::ingest
