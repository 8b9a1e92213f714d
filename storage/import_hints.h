#pragma once
/// Which TORCH_TRACE of the project names a memory snapshot's owners (engine/ingest/snapshot_hints.h):
/// the import of a snapshot looks at every torch_trace source of the project, those imported by
/// the same importPaths call included, and uses only the ones of the same run (their
/// inductor_output_code records name the generated modules of the snapshot's frames, or their
/// CUDAGraphNode.record spans fall inside its time range). Several such traces are merged; none
/// leaves the compile ids unknown, and the diagnostics say why. The project keeps no module file
/// names of a trace (trace_store.h), so a trace not read in this call is read again from its
/// stored path; one no longer there is named in the diagnostics.
///
/// Thread contract: runs on the import's thread with the import's connection.
#include "engine/readers/torch_trace.h"
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_story.h"
#include "storage/sqlite.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace storage {

/// TORCH_TRACE sources read by one importPaths call, by source id: a snapshot of the same call
/// takes them from here instead of reading the logs again.
using ReadTraces = std::map<int64_t, std::shared_ptr<const std::vector<engine::readers::trace::TorchTrace>>>;

struct FoundHints {
    /// The hints of every trace of the same run, merged; null when none is.
    std::shared_ptr<const engine::snapshot::SnapshotHints> hints;
    /// For the snapshot's source: which traces were used and why, or why none was.
    std::vector<std::string> diagnostics;
};

/// The hints of the project's traces of the same run as `snapshot` (the file at `path`). `read`:
/// traces this call has in memory (may be null). `cancelled` is asked between traces (may be
/// empty). Errors: the database, or a cancel.
Result<FoundHints> projectSnapshotHints(Database& db, const engine::snapshot::Snapshot& snapshot,
    const std::string& path, const ReadTraces* read, const std::function<bool()>& cancelled = {});

} // namespace storage
