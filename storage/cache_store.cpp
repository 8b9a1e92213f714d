// Compile-cache entries (cache_store.h): tables cache_entries, cache_checks, cache_options and
// cache_notes, and the graph of each entry's py_code through writeGraph (role "cache").
#include "storage/cache_store.h"

#include "engine/cache/cache_key.h"
#include "storage/graph_store.h"
#include "storage/store_util.h"

namespace storage {

using namespace detail;
using engine::cache::CacheCheck;
using engine::cache::CacheEntry;

namespace {

std::optional<int64_t> wide(std::optional<int> v)
{
    return v ? std::optional<int64_t>(*v) : std::nullopt;
}
std::optional<int> narrow(std::optional<int64_t> v)
{
    return v ? std::optional<int>(int(*v)) : std::nullopt;
}

// The columns readEntry() reads, in its order.
const char* const kEntryColumns = "id, source_id, path, relative_path, layout_known, model_folder, class_name, "
                                  "dynamic, cache_kind, folder_md5, dist_folder, world, global_rank, tp_rank, "
                                  "pp_rank, func, backend, loads, first_failure, meta_name, meta_date, version, "
                                  "python, signature, py_code, read_error, log, graph_id";

Result<void> writeChecks(WriteContext& ctx, int64_t entryId, const std::vector<CacheCheck>& checks)
{
    auto s = ctx.db().prepare("INSERT INTO cache_checks(entry_id, pos, name, status, exception, message, detail) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!s)
        return s.error();
    for (size_t i = 0; i < checks.size(); ++i) {
        const CacheCheck& c = checks[i];
        s->bind(1, entryId).bind(2, int64_t(i)).bind(3, std::string_view(c.name));
        s->bind(4, std::string_view(engine::cache::statusName(c.status))).bind(5, std::string_view(c.exception));
        s->bind(6, std::string_view(c.message)).bind(7, std::string_view(c.detail));
        if (auto r = insertRow(ctx, *s); !r)
            return r;
    }
    return {};
}

Result<void> writeOptions(WriteContext& ctx, int64_t entryId, const std::vector<std::string>& lines)
{
    const auto options = engine::cache::splitOptions(lines);
    if (options.empty())
        return {};
    auto s = ctx.db().prepare("INSERT INTO cache_options(entry_id, pos, key, value) VALUES (?, ?, ?, ?)");
    if (!s)
        return s.error();
    for (size_t i = 0; i < options.size(); ++i) {
        s->bind(1, entryId).bind(2, int64_t(i)).bind(3, std::string_view(options[i].first));
        s->bind(4, std::string_view(options[i].second));
        if (auto r = insertRow(ctx, *s); !r)
            return r;
    }
    return {};
}

Result<StoredCacheEntry> readEntry(Database& db, const Statement& s)
{
    StoredCacheEntry e;
    e.id = s.columnInt(0);
    e.sourceId = s.columnInt(1);
    e.path = s.columnText(2);
    e.relativePath = s.columnText(3);
    e.layoutKnown = s.columnInt(4) != 0;
    e.model.name = s.columnText(5);
    e.model.className = s.columnText(6);
    if (auto dynamic = optionalInt(s, 7))
        e.model.dynamic = *dynamic != 0;
    e.model.kind = s.columnText(8);
    e.model.md5 = s.columnText(9);
    e.dist.name = s.columnText(10);
    e.dist.world = narrow(optionalInt(s, 11));
    e.dist.globalRank = narrow(optionalInt(s, 12));
    e.dist.tpRank = narrow(optionalInt(s, 13));
    e.dist.ppRank = narrow(optionalInt(s, 14));
    e.func = s.columnText(15);
    e.backend = s.columnText(16);
    e.loads = s.columnInt(17) != 0;
    e.firstFailure = optionalText(s, 18);
    e.metaName = s.columnText(19);
    e.metaDate = s.columnText(20);
    e.version = s.columnText(21);
    e.python = s.columnText(22);
    e.signature = s.columnText(23);
    e.pyCode = s.columnText(24);
    e.readError = optionalText(s, 25);
    auto log = parseStringArray(s.columnText(26));
    if (!log)
        return badRow(db, "cache entry " + std::to_string(e.id) + ": log is not a JSON array of strings");
    e.log = std::move(*log);
    e.graphId = optionalInt(s, 27);

    static const CacheCheck::Status statuses[] = { CacheCheck::Status::Passed, CacheCheck::Status::Failed,
        CacheCheck::Status::Warning, CacheCheck::Status::NotReached };
    auto checks = db.prepare(
        "SELECT name, status, exception, message, detail FROM cache_checks WHERE entry_id = ? ORDER BY pos");
    auto options = db.prepare("SELECT key, value FROM cache_options WHERE entry_id = ? ORDER BY pos");
    if (!checks || !options)
        return !checks ? checks.error() : options.error();
    checks->bind(1, e.id);
    auto checkRows = forEachRow(*checks, [&]() -> Result<void> {
        CacheCheck c;
        c.name = checks->columnText(0);
        if (!parseName(checks->columnText(1), statuses, engine::cache::statusName, c.status))
            return badRow(db,
                "cache entry " + std::to_string(e.id) + ", check " + c.name + ": unknown status '"
                    + checks->columnText(1) + "'");
        c.exception = checks->columnText(2);
        c.message = checks->columnText(3);
        c.detail = checks->columnText(4);
        e.checks.push_back(std::move(c));
        return {};
    });
    if (!checkRows)
        return checkRows.error();
    options->bind(1, e.id);
    auto rows = forEachRow(*options, [&]() -> Result<void> {
        e.options.emplace_back(options->columnText(0), options->columnText(1));
        return {};
    });
    if (!rows)
        return rows.error();
    return e;
}

} // namespace

Result<int64_t> writeCacheEntry(WriteContext& ctx, int64_t sourceId, const CacheEntry& entry)
{
    Database& db = ctx.db();
    const engine::cache::CacheFileReport& report = entry.report;
    const engine::cache::CacheArtifact* a = report.artifact ? &*report.artifact : nullptr;

    std::optional<int64_t> graphId;
    if (a && a->module) {
        GraphPlace place;
        place.sourceId = sourceId;
        place.group = entry.relativePath.empty() ? entry.path : entry.relativePath;
        place.file = entry.path;
        place.role = "cache";
        for (const auto& d : a->module->diagnostics)
            place.diagnostics.push_back(d.toString());
        auto id = writeGraph(ctx, a->module->graph, place);
        if (!id)
            return id.error();
        graphId = *id;
    }

    auto s = db.prepare("INSERT INTO cache_entries(source_id, path, relative_path, layout_known, model_folder, "
                        "class_name, dynamic, cache_kind, folder_md5, dist_folder, world, global_rank, tp_rank, "
                        "pp_rank, func, backend, loads, first_failure, meta_name, meta_date, version, python, "
                        "file_mode, file_size, signature, py_code, read_error, log, graph_id) VALUES (?, ?, ?, ?, ?, "
                        "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!s)
        return s.error();
    const auto& m = entry.model;
    const auto& d = entry.dist;
    s->bind(1, sourceId).bind(2, std::string_view(entry.path)).bind(3, std::string_view(entry.relativePath));
    s->bind(4, int64_t(entry.layoutKnown)).bind(5, std::string_view(m.name)).bind(6, std::string_view(m.className));
    bindOptional(*s, 7, m.name.empty() ? std::nullopt : std::optional<int64_t>(m.dynamic));
    s->bind(8, std::string_view(m.kind)).bind(9, std::string_view(m.md5)).bind(10, std::string_view(d.name));
    bindOptional(*s, 11, wide(d.world));
    bindOptional(*s, 12, wide(d.globalRank));
    bindOptional(*s, 13, wide(d.tpRank));
    bindOptional(*s, 14, wide(d.ppRank));
    s->bind(15, std::string_view(entry.func));
    s->bind(16, std::string_view(engine::config::backendName(a ? a->backend : report.loader)));
    s->bind(17, int64_t(report.loads));
    const CacheCheck* failed = report.firstFailure();
    bindOptional(*s, 18, failed ? std::optional<std::string>(failed->name) : std::nullopt);
    const bool meta = a && a->hasMeta;
    bindOptional(*s, 19, meta ? std::optional<std::string>(a->meta.name) : std::nullopt);
    bindOptional(*s, 20, meta ? std::optional<std::string>(a->meta.date) : std::nullopt);
    bindOptional(*s, 21, meta ? std::optional<std::string>(a->meta.version) : std::nullopt);
    std::optional<std::string> python;
    if (a && a->compiledFn.decoded && !a->compiledFn.versions.candidates.empty())
        python = a->compiledFn.versions.candidates.front().text();
    bindOptional(*s, 22, python);
    bindOptional(*s, 23, report.file.exists ? std::optional<int64_t>(report.file.mode) : std::nullopt);
    bindOptional(*s, 24, report.file.exists ? std::optional<int64_t>(int64_t(report.file.size)) : std::nullopt);
    const bool fx = a && a->hasCompiledFx;
    bindOptional(*s, 25, fx ? std::optional<std::string>(a->signatureText) : std::nullopt);
    bindOptional(*s, 26, fx ? std::optional<std::string>(a->pyCode) : std::nullopt);
    bindOptional(*s, 27, report.readError.empty() ? std::nullopt : std::optional<std::string>(report.readError));
    s->bind(28, std::string_view(jsonStringArray(report.log)));
    bindOptional(*s, 29, graphId);
    if (auto r = insertRow(ctx, *s); !r)
        return r.error();
    const int64_t id = db.lastInsertRowId();
    if (auto r = writeChecks(ctx, id, report.checks); !r)
        return r.error();
    if (a)
        if (auto r = writeOptions(ctx, id, a->signature.options); !r)
            return r.error();
    return id;
}

Result<std::vector<int64_t>> writeCacheScan(WriteContext& ctx, int64_t sourceId, const engine::cache::CacheScan& scan)
{
    std::vector<int64_t> ids;
    for (const CacheEntry& e : scan.entries) {
        auto id = writeCacheEntry(ctx, sourceId, e);
        if (!id)
            return id.error();
        ids.push_back(*id);
    }
    std::vector<engine::cache::ScanNote> notes = scan.notes;
    if (!scan.cacheDirOwner.empty())
        notes.push_back({ scan.root, scan.cacheDirOwner });
    if (notes.empty())
        return ids;
    auto s = ctx.db().prepare("INSERT INTO cache_notes(source_id, pos, path, message) VALUES (?, ?, ?, ?)");
    if (!s)
        return s.error();
    for (size_t i = 0; i < notes.size(); ++i) {
        s->bind(1, sourceId).bind(2, int64_t(i)).bind(3, std::string_view(notes[i].path));
        s->bind(4, std::string_view(notes[i].message));
        if (auto r = insertRow(ctx, *s); !r)
            return r.error();
    }
    return ids;
}

Result<std::vector<StoredCacheEntry>> listCacheEntries(Database& db, std::optional<int64_t> sourceId)
{
    auto s = db.prepare(std::string("SELECT ") + kEntryColumns + " FROM cache_entries"
        + (sourceId ? " WHERE source_id = ?" : "") + " ORDER BY id");
    if (!s)
        return s.error();
    if (sourceId)
        s->bind(1, *sourceId);
    std::vector<StoredCacheEntry> out;
    auto rows = forEachRow(*s, [&]() -> Result<void> {
        auto e = readEntry(db, *s);
        if (!e)
            return e.error();
        out.push_back(std::move(*e));
        return {};
    });
    if (!rows)
        return rows.error();
    return out;
}

Result<StoredCacheEntry> readCacheEntry(Database& db, int64_t entryId)
{
    auto s = db.prepare(std::string("SELECT ") + kEntryColumns + " FROM cache_entries WHERE id = ?");
    if (!s)
        return s.error();
    s->bind(1, entryId);
    auto row = s->step();
    if (!row)
        return row.error();
    if (!*row)
        return Error { ErrorCode::NotFound, "no cache entry " + std::to_string(entryId), db.path() };
    return readEntry(db, *s);
}

} // namespace storage
