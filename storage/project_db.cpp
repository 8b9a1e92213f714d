#include "storage/project_db.h"

namespace storage {

const std::vector<Migration>& migrations()
{
    // Append only: a released step never changes (older projects replay it as it was).
    static const std::vector<Migration> steps = {
        { 1, "sources: every imported file or folder",
            "CREATE TABLE sources ("
            "  id INTEGER PRIMARY KEY,"
            "  path TEXT NOT NULL,"
            "  kind TEXT NOT NULL,"
            "  size INTEGER NOT NULL,"
            "  content_hash TEXT NOT NULL,"
            "  imported_at TEXT NOT NULL,"
            "  diagnostics TEXT NOT NULL DEFAULT '',"
            "  UNIQUE (kind, content_hash)"
            ");" },
    };
    return steps;
}

Result<Database> openProject(const std::string& path, const Database::OpenOptions& options, int upTo)
{
    auto opened = Database::open(path, options);
    if (!opened)
        return opened.error();
    Database db = std::move(opened.value());
    auto app = db.pragmaInt("application_id");
    auto version = db.userVersion();
    auto tables = db.pragmaInt("schema_version"); // 0 for a database nothing was ever created in
    if (!app || !version || !tables)
        return !app ? app.error() : !version ? version.error() : tables.error();
    if (*app != kApplicationId && (*app != 0 || *tables != 0))
        return Error { ErrorCode::InvalidArgument,
            "not an aclgraph-inspector project (a SQLite database of another application)", path };
    if (*version > kSchemaVersion)
        return Error { ErrorCode::InvalidArgument,
            "written by a newer aclgraph-inspector (project schema version " + std::to_string(*version)
                + "; this one reads up to " + std::to_string(kSchemaVersion) + "): open it with a newer version",
            path };
    if (options.readOnly && *version < upTo)
        return Error { ErrorCode::InvalidArgument,
            "project schema version " + std::to_string(*version) + " needs migrating, which a read-only open cannot do",
            path };
    for (const Migration& m : migrations()) {
        if (m.version <= *version || m.version > upTo)
            continue;
        auto tx = Transaction::begin(db);
        if (!tx)
            return tx.error();
        if (auto r = db.exec(m.sql); !r)
            return Error { ErrorCode::Io,
                "migrating to schema version " + std::to_string(m.version) + " (" + m.description
                    + ") failed: " + r.error().message,
                path };
        if (auto r = db.exec("PRAGMA application_id=" + std::to_string(kApplicationId)); !r)
            return r.error();
        if (auto r = db.setUserVersion(m.version); !r)
            return r.error();
        if (auto r = tx->commit(); !r)
            return r.error();
    }
    return db;
}

} // namespace storage
