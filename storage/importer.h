#pragma once
/// Importing what users bring into a project database: FX graph files, scenarios, TorchAir's
/// generated modules, TORCH_COMPILE_DEBUG folders, compiled_module files and `.torchair_cache`
/// trees. Each source is read with the engine's readers first (outside any transaction), then
/// written in one transaction: an error or a cancel leaves the database exactly as it was, and a
/// killed process leaves every completed source intact (WAL). The same content imported twice
/// (same kind, same content hash) is recognised and not written again.
///
/// Thread contract: importPaths() runs on the calling thread with its own connection; ImportJob
/// runs it on a worker thread. Callbacks are called on the thread doing the work.
#include "engine/ingest/source.h"
#include "storage/sqlite.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace storage {

/// The kinds of input (engine/ingest/source.h owns them and their detection).
using SourceKind = engine::ingest::SourceKind;
using engine::ingest::sourceKindName;
/// Tells the kind from the path and its first bytes. Error (naming the path) when it is none.
Result<SourceKind> detectSourceKind(const std::string& path);
/// The content hash of a file (md5 of its bytes) or a folder (md5 over every regular file's
/// relative path, size and md5, in path order; symlinks are not followed).
Result<std::string> contentHash(const std::string& path);

struct ImportProgress {
    size_t source = 0; ///< 0-based index of the source being imported
    size_t sources = 0;
    std::string path;
    std::string phase; ///< "hashing" (the content hash, to skip a source imported before), "reading", "summarizing" (a
                       ///< snapshot's pools, from a replay of its traces), "writing", "done"
    int64_t rows = 0; ///< rows written so far for this source
    /// How far the phase is, where it can tell: `done` of `total` `unit`s. Units: "bytes" while a
    /// memory snapshot's file is read (phase "reading") and while a run log is read and written (phase
    /// "reading the log"); "entries" while its trace is replayed and
    /// written as runs (phase "writing"; every device's entries together, a device without a trace
    /// counting as one). Empty, with done = total = 0, otherwise: then only `rows` moves. Reported at
    /// most about once per 1 % of the total; while a phase has a total, the row count rides along
    /// with those reports instead of coming every few thousand rows.
    uint64_t done = 0, total = 0;
    std::string unit;
};
/// A progress report in words, for a status line: {"reading", "312/1006 MiB"} (KiB below 1 MiB),
/// {"replaying", "45%"} (a snapshot's trace entries), {"writing", "120,000 rows"}; the amount is
/// empty when the report tells none.
struct ProgressWords {
    std::string phase, amount;
};
ProgressWords progressWords(const ImportProgress& p);

struct SourceResult {
    /// Skipped: a file inside an imported folder that is no input aclgraph-inspector reads (message: why).
    enum class Status { Imported, Duplicate, Failed, Cancelled, Skipped };
    std::string path;
    Status status = Status::Failed;
    std::string kind; ///< sourceKindName, empty when unknown
    int64_t sourceId = 0; ///< the new source, or the earlier one for a duplicate
    std::string message; ///< the error, or "already imported as source N (PATH)"
    int graphs = 0, cacheEntries = 0, passReports = 0, runs = 0;
    int64_t rows = 0;
    double seconds = 0;
    std::vector<std::string> diagnostics; ///< readers' warnings, stored with the source
};
const char* statusName(SourceResult::Status s); ///< "imported", "duplicate", "failed", "cancelled", "skipped"

struct ImportOptions {
    std::function<void(const ImportProgress&)> progress;
    /// Asked between sources and every few thousand rows; true stops the import (the source being
    /// written is rolled back, later sources are not started).
    std::function<bool()> cancelled;
    /// Run TorchAir's reduce-overhead passes (default config of the graph's backend) on each imported
    /// graph and store their reports and result stages.
    bool runPasses = true;
    /// Also simulate each imported scenario under its own config and store the run (with memory at
    /// every step), linked to the source, in the same transaction.
    bool simulateScenarios = false;
};

/// Imports `paths` in order into the project at `dbPath` (created when absent), except that memory
/// snapshots come after every other path, so that their owners are named with the TORCH_TRACEs of
/// the same run brought by the same call (import_hints.h; ImportProgress::source counts in that
/// order). The results keep the order of `paths`. Fails as a whole only when the database cannot be
/// opened; each source has its own result.
Result<std::vector<SourceResult>> importPaths(
    const std::string& dbPath, const std::vector<std::string>& paths, const ImportOptions& options = {});
/// One source into an open project (a snapshot uses the project's traces, import_hints.h).
SourceResult importSource(
    Database& db, const std::string& path, const ImportOptions& options = {}, size_t index = 0, size_t count = 1);

/// importPaths on a worker thread.
class ImportJob {
public:
    ImportJob(std::string dbPath, std::vector<std::string> paths, ImportOptions options);
    ~ImportJob(); ///< cancels and joins
    ImportJob(const ImportJob&) = delete;
    ImportJob& operator=(const ImportJob&) = delete;

    void cancel() { m_cancel = true; }
    bool finished() const { return m_done; }
    /// Joins the worker and returns what importPaths returned.
    Result<std::vector<SourceResult>> wait();

private:
    std::atomic<bool> m_cancel { false };
    std::atomic<bool> m_done { false };
    std::unique_ptr<Result<std::vector<SourceResult>>> m_result;
    std::thread m_thread;
};

} // namespace storage
