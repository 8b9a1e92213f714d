#pragma once
/// What TorchAir does when it finds a cache file (torchair-behavior.md §5.3-5.5): the checks of
/// `LazyCompiledModel.compile` -> `CompiledModel.load` -> `rebase`, or of `readable_cache`, in
/// TorchAir's order, each with the exception text TorchAir would raise, and the log lines it would
/// print (`Loading cache from ...`, `Clear broken cache ... as ...`). Nothing is executed: where
/// TorchAir runs code (exec of py_code, the live module's parameters) we say what we can tell
/// statically.
#include "engine/cache/cache_artifact.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace engine::cache {

/// lstat/stat of a path.
struct FileFacts {
    bool exists = false; ///< stat succeeds (a dangling symlink does not exist)
    bool isSymlink = false; ///< the path itself is a symlink
    std::string symlinkTarget; ///< as readlink gives it
    std::string realPath; ///< realpath(), or the path when it cannot be resolved
    bool isRegular = false;
    uint32_t uid = 0; ///< stat's owner
    uint32_t lstatUid = 0; ///< lstat's owner (the link's own, for a symlink)
    uint32_t mode = 0; ///< st_mode & 07777 of stat
    uint64_t size = 0;
    int64_t mtime = 0; ///< seconds since the epoch
    std::string owner; ///< user name of uid, or the number
};
FileFacts statFile(const std::string& path);

struct CacheCheck {
    enum class Status {
        Passed,
        Failed, ///< TorchAir raises here: the cache is cleared and compiled again
        Warning, ///< something TorchAir would only find at run time, or that we cannot tell statically
        NotReached, ///< an earlier check failed
    };
    std::string name; ///< "exists", "symlink", "owner", "permissions", "unpickle", "version", "compiled_fn",
                      ///< "compiled_fx", "compiled_fns", "py_code", "parameters"
    Status status = Status::NotReached;
    std::string exception; ///< Python exception class TorchAir raises ("ValueError"), for Failed
    std::string message; ///< TorchAir's exception text when Failed; what was seen otherwise
    std::string detail; ///< what we add to TorchAir's text ("the file has mode 644")
};
const char* statusName(CacheCheck::Status s); ///< "passed", "FAILED", "warning", "not reached"

/// Which TorchAir entry point reads the file.
enum class Purpose {
    Load, ///< cache_compile's lazy load (the path is realpath'd; a symlink is followed)
    Readable, ///< readable_cache (a symlink is refused)
};

struct CheckOptions {
    /// Whose strict unpickler and VERSION: the backend the user loads with. Default: the backend
    /// the file's classes name (so a torchair file is checked as torchair loads it).
    std::optional<config::Backend> loader;
    Purpose purpose = Purpose::Load;
    std::optional<uint32_t> uid; ///< the user TorchAir runs as; default: ours (getuid())
    ReadOptions read;
};

struct CacheFileReport {
    std::string path; ///< as given
    FileFacts file;
    config::Backend loader = config::Backend::TorchAir;
    std::vector<CacheCheck> checks; ///< in TorchAir's order
    bool loads = false; ///< no check failed: TorchAir would use this cache
    std::optional<CacheArtifact> artifact; ///< when the pickle could be read
    std::string readError; ///< why not
    double readSeconds = 0; ///< how long our read took
    /// TorchAir's log lines for this load: "[INFO] TORCHAIR Loading cache from ...", ...
    std::vector<std::string> log;

    const CacheCheck* firstFailure() const;
};

/// Reads and checks one compiled_module. Never fails: an unreadable file is a failed check.
CacheFileReport checkCacheFile(const std::string& path, const CheckOptions& options = {});

/// readable_cache's text (§5.5): '=' * 100, str(meta), the signature, _pretty_title('caller
/// frame'), the disassembly of compiled_fn (ours, as `python` prints dis.dis), joined by newlines.
/// `python`: the version to disassemble as; default the best guess.
std::string readableText(const CacheArtifact& artifact, std::optional<marshal::PyVersion> python = {});

/// What readable_cache(..., file=F) writes: every line of readableText prefixed by "# ", a newline,
/// then py_code.
std::string readableFileText(const CacheArtifact& artifact, std::optional<marshal::PyVersion> python = {});

/// readable_cache's checks on its output file (§5.5): a symlink is refused ("Output file <f> can
/// not be a symlink"); an existing file must be ours and mode 600. Empty when it may be written.
std::string checkReadableOutput(const std::string& path, std::optional<uint32_t> uid = {});

} // namespace engine::cache
