#pragma once
/// The project file (`.aclgi`): one SQLite database with aclgraph-inspector's schema. Its version is
/// PRAGMA user_version; PRAGMA application_id marks the file as ours. Opening migrates an older
/// project one version at a time, each step in its own transaction, and refuses a newer one.
/// The schema is documented in docs/database.md.
#include "storage/sqlite.h"

#include <string>
#include <vector>

namespace storage {

/// The schema version this build writes and reads.
constexpr int kSchemaVersion = 7;
/// PRAGMA application_id of a project database: "ACGI".
constexpr int kApplicationId = 0x41434749;

/// One step from `version - 1` to `version`.
struct Migration {
    int version;
    const char* description;
    const char* sql;
};
/// Every migration, oldest first; migrations()[i].version == i + 1.
const std::vector<Migration>& migrations();

/// Opens (creating it if asked) and migrates a project database. Errors, each naming the file:
/// a FIFO, socket or device (refused before SQLite sees it), a folder, a 0-byte file for a reader
/// ("empty (0 bytes): not a project"; a writer makes a new project in it), a foreign file said with
/// what it is ("a memory snapshot (pickle), not a project: import it with ..."), a SQLite database
/// of another application, one written by a newer aclgraph-inspector, a damaged one opened for
/// writing. PRAGMA quick_check runs on files up to options.quickCheckMaxBytes; a damaged project
/// opened read-only comes back with damage() set (docs/limits.md). A failed migration rolls back its step.
/// `upTo` (tests) stops migrating at that version.
Result<Database> openProject(
    const std::string& path, const Database::OpenOptions& options = {}, int upTo = kSchemaVersion);

} // namespace storage
