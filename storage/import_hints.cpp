// The project's TORCH_TRACEs of a memory snapshot's run, as the hints of its story (import_hints.h).
#include "storage/import_hints.h"

#include "engine/ingest/snapshot_hints.h"
#include "engine/ingest/source.h"

#include <filesystem>

namespace storage {

namespace {

struct TraceSource {
    int64_t id = 0;
    std::string path;
};

Result<std::vector<TraceSource>> traceSources(Database& db)
{
    auto q = db.prepare("SELECT id, path FROM sources WHERE kind = ? ORDER BY id");
    if (!q)
        return q.error();
    q->bind(1, std::string_view(engine::ingest::sourceKindName(engine::ingest::SourceKind::TorchTrace)));
    std::vector<TraceSource> out;
    for (;;) {
        auto row = q->step();
        if (!row)
            return row.error();
        if (!*row)
            break;
        out.push_back({ q->columnInt(0), q->columnText(1) });
    }
    return out;
}

} // namespace

Result<FoundHints> projectSnapshotHints(Database& db, const engine::snapshot::Snapshot& snapshot,
    const std::string& path, const ReadTraces* read, const std::function<bool()>& cancelled)
{
    FoundHints found;
    auto sources = traceSources(db);
    if (!sources)
        return sources.error();
    const engine::ingest::SnapshotRunMarks marks = engine::ingest::snapshotRunMarks(snapshot);
    engine::snapshot::SnapshotHints merged;
    std::vector<std::string> unread;
    size_t used = 0;
    for (const TraceSource& s : *sources) {
        if (cancelled && cancelled())
            return Error { ErrorCode::Cancelled, "cancelled", path };
        const std::string name = "TORCH_TRACE source " + std::to_string(s.id) + " (" + s.path + ")";
        std::shared_ptr<const std::vector<engine::readers::trace::TorchTrace>> traces;
        if (read)
            if (auto it = read->find(s.id); it != read->end())
                traces = it->second;
        if (!traces) {
            // The project keeps no inductor_output_code file names: the log is read again.
            std::error_code ec;
            if (!std::filesystem::exists(s.path, ec)) {
                unread.push_back(name + " is no longer on disk, so its module names could not be read");
                continue;
            }
            auto again = engine::readers::trace::readTorchTraceDir(s.path);
            if (!again) {
                unread.push_back(name + " could not be read again: " + again.error().toString());
                continue;
            }
            traces = std::make_shared<const std::vector<engine::readers::trace::TorchTrace>>(std::move(again.value()));
        }
        const engine::snapshot::SnapshotHints hints = engine::ingest::snapshotHints(*traces);
        const std::string why = engine::ingest::sameRunEvidence(hints, marks);
        if (why.empty())
            continue;
        ++used;
        found.diagnostics.push_back(path + ": note: owners named with the hints of " + name + ": " + why);
        engine::ingest::mergeHints(merged, hints);
    }
    for (const std::string& u : unread)
        found.diagnostics.push_back(path + ": warning: " + u);
    if (used > 0) {
        found.hints = std::make_shared<const engine::snapshot::SnapshotHints>(std::move(merged));
        return found;
    }
    // Only a snapshot with compiled code has compile ids to miss.
    if (!marks.modules.empty())
        found.diagnostics.push_back(path + ": warning: no TORCH_TRACE of this run in the project: compile ids unknown ("
            + (sources->empty() ? std::string("the project holds no TORCH_TRACE")
                                : std::to_string(sources->size())
                        + " TORCH_TRACE source(s) checked: none names the snapshot's generated modules or records a "
                          "CUDA graph inside its time range")
            + ")");
    return found;
}

} // namespace storage
