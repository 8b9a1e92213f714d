#include "storage/project_db.h"

#include "engine/core/file_io.h"
#include "engine/ingest/source.h"

#include <filesystem>
#include <sstream>

namespace {

// Version 2: everything a source holds. Row ids are SQLite rowids; children name their parent
// with ON DELETE CASCADE so deleting a source removes everything imported from it. Per-node and
// per-event tables are WITHOUT ROWID on their natural key (compact, and the key is the index the
// readers use). An input-update event's per-input actions repeat call after call (hundreds of
// parameters, each "parameter"), so events name a shared run_input_sets row. JSON columns hold small lists (log lines,
// input actions); every fact a user would filter on has its own column.
const char* const kSchemaV2 = R"SQL(
CREATE TABLE graphs (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  grp TEXT NOT NULL DEFAULT '',
  stage INTEGER NOT NULL DEFAULT 0,
  pass TEXT NOT NULL DEFAULT '',
  file TEXT NOT NULL DEFAULT '',
  role TEXT NOT NULL DEFAULT 'graph',
  dynamic INTEGER NOT NULL DEFAULT 0,
  comment TEXT NOT NULL DEFAULT '',
  node_count INTEGER NOT NULL DEFAULT 0,
  placeholder_count INTEGER NOT NULL DEFAULT 0,
  static_bytes INTEGER,
  recorded_mutated_inputs TEXT,
  error TEXT,
  diagnostics TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX graphs_source ON graphs(source_id);
CREATE TABLE nodes (
  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  op TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  input_kind TEXT,
  symbol TEXT,
  workspace TEXT,
  provenance TEXT NOT NULL DEFAULT '',
  storage TEXT NOT NULL DEFAULT '',
  freed_after TEXT,
  PRIMARY KEY (graph_id, idx)
) WITHOUT ROWID;
CREATE TABLE node_args (
  graph_id INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  keyword TEXT,
  kind TEXT NOT NULL,
  ref_idx INTEGER,
  value TEXT,
  PRIMARY KEY (graph_id, node_idx, pos),
  FOREIGN KEY (graph_id, node_idx) REFERENCES nodes(graph_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE node_users (
  graph_id INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,
  user_idx INTEGER NOT NULL,
  PRIMARY KEY (graph_id, node_idx, user_idx),
  FOREIGN KEY (graph_id, node_idx) REFERENCES nodes(graph_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE tensors (
  graph_id INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,
  out_idx INTEGER NOT NULL,
  dtype TEXT NOT NULL,
  shape TEXT NOT NULL,
  stride TEXT,
  device TEXT NOT NULL,
  storage_offset INTEGER NOT NULL DEFAULT 0,
  symbolic INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER,
  PRIMARY KEY (graph_id, node_idx, out_idx),
  FOREIGN KEY (graph_id, node_idx) REFERENCES nodes(graph_id, idx) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE cache_entries (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  relative_path TEXT NOT NULL DEFAULT '',
  layout_known INTEGER NOT NULL DEFAULT 0,
  model_folder TEXT NOT NULL DEFAULT '',
  class_name TEXT NOT NULL DEFAULT '',
  dynamic INTEGER,
  cache_kind TEXT NOT NULL DEFAULT '',
  folder_md5 TEXT NOT NULL DEFAULT '',
  dist_folder TEXT NOT NULL DEFAULT '',
  world INTEGER,
  global_rank INTEGER,
  tp_rank INTEGER,
  pp_rank INTEGER,
  func TEXT NOT NULL DEFAULT '',
  backend TEXT NOT NULL DEFAULT '',
  loads INTEGER NOT NULL DEFAULT 0,
  first_failure TEXT,
  meta_name TEXT,
  meta_date TEXT,
  version TEXT,
  python TEXT,
  file_mode INTEGER,
  file_size INTEGER,
  signature TEXT,
  py_code TEXT,
  read_error TEXT,
  log TEXT NOT NULL DEFAULT '[]',
  graph_id INTEGER REFERENCES graphs(id) ON DELETE SET NULL
);
CREATE INDEX cache_entries_source ON cache_entries(source_id);
CREATE TABLE cache_checks (
  entry_id INTEGER NOT NULL REFERENCES cache_entries(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  exception TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (entry_id, pos)
) WITHOUT ROWID;
CREATE TABLE cache_options (
  entry_id INTEGER NOT NULL REFERENCES cache_entries(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (entry_id, pos)
) WITHOUT ROWID;
CREATE TABLE cache_notes (
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  path TEXT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (source_id, pos)
) WITHOUT ROWID;
CREATE TABLE pass_reports (
  id INTEGER PRIMARY KEY,
  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  name TEXT NOT NULL,
  option TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL,
  backend TEXT NOT NULL DEFAULT '',
  nodes_before INTEGER NOT NULL DEFAULT 0,
  nodes_after INTEGER NOT NULL DEFAULT 0,
  peak_bytes_before INTEGER NOT NULL DEFAULT 0,
  peak_bytes_after INTEGER NOT NULL DEFAULT 0,
  traffic_bytes_before INTEGER NOT NULL DEFAULT 0,
  traffic_bytes_after INTEGER NOT NULL DEFAULT 0,
  result_graph_id INTEGER REFERENCES graphs(id) ON DELETE SET NULL,
  log TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX pass_reports_graph ON pass_reports(graph_id);
CREATE TABLE pass_changes (
  report_id INTEGER NOT NULL REFERENCES pass_reports(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  change TEXT NOT NULL,
  node TEXT NOT NULL,
  before TEXT NOT NULL DEFAULT '',
  after TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (report_id, pos)
) WITHOUT ROWID;
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
  scenario_path TEXT NOT NULL DEFAULT '',
  scenario_name TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  backend TEXT NOT NULL,
  profile TEXT NOT NULL,
  capacity_bytes INTEGER NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  overrides TEXT NOT NULL DEFAULT '[]',
  calls INTEGER NOT NULL DEFAULT 0,
  events INTEGER NOT NULL DEFAULT 0,
  captures INTEGER NOT NULL DEFAULT 0,
  recaptures INTEGER NOT NULL DEFAULT 0,
  replays INTEGER NOT NULL DEFAULT 0,
  eager_calls INTEGER NOT NULL DEFAULT 0,
  hazards INTEGER NOT NULL DEFAULT 0,
  peak_reserved INTEGER NOT NULL DEFAULT 0,
  peak_allocated INTEGER NOT NULL DEFAULT 0,
  out_of_memory INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  keyframe_interval INTEGER NOT NULL DEFAULT 0,
  warnings TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE run_graphs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  name TEXT NOT NULL,
  graph TEXT NOT NULL,
  pool TEXT NOT NULL,
  keys TEXT NOT NULL DEFAULT '[]',
  all_keys TEXT NOT NULL DEFAULT '[]',
  captures INTEGER NOT NULL DEFAULT 0,
  recaptures_mutated_input INTEGER NOT NULL DEFAULT 0,
  recaptures_core_limit INTEGER NOT NULL DEFAULT 0,
  recaptures_force INTEGER NOT NULL DEFAULT 0,
  replays INTEGER NOT NULL DEFAULT 0,
  eager_calls INTEGER NOT NULL DEFAULT 0,
  fallback_call INTEGER,
  counters TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, pos)
) WITHOUT ROWID;
CREATE TABLE run_pools (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  pool TEXT NOT NULL,
  graphs TEXT NOT NULL DEFAULT '[]',
  custom INTEGER NOT NULL DEFAULT 0,
  peak_reserved INTEGER NOT NULL DEFAULT 0,
  peak_allocated INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, pool)
) WITHOUT ROWID;
CREATE TABLE run_calls (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  graph TEXT NOT NULL,
  graph_id TEXT NOT NULL,
  key TEXT NOT NULL,
  action TEXT NOT NULL,
  recapture_cause TEXT NOT NULL DEFAULT '',
  inputs_copied INTEGER NOT NULL DEFAULT 0,
  bytes_copied INTEGER NOT NULL DEFAULT 0,
  outputs_rebuilt INTEGER NOT NULL DEFAULT 0,
  device_reserved INTEGER NOT NULL DEFAULT 0,
  device_allocated INTEGER NOT NULL DEFAULT 0,
  first_event INTEGER NOT NULL DEFAULT 0,
  event_count INTEGER NOT NULL DEFAULT 0,
  pools TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE run_events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  call INTEGER NOT NULL,
  kind TEXT NOT NULL,
  graph TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL DEFAULT '',
  log TEXT NOT NULL DEFAULT '[]',
  inputs_set INTEGER,
  hazard INTEGER,
  device_reserved INTEGER NOT NULL DEFAULT 0,
  device_allocated INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE run_input_sets (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  id INTEGER NOT NULL,
  inputs TEXT NOT NULL,
  PRIMARY KEY (run_id, id)
) WITHOUT ROWID;
CREATE TABLE run_hazards (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  kind TEXT NOT NULL,
  call INTEGER NOT NULL,
  graph TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL DEFAULT '',
  concerns TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  made_at_call INTEGER,
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE run_owners (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  owner INTEGER NOT NULL,
  kind TEXT NOT NULL,
  graph TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL DEFAULT '',
  tensor TEXT NOT NULL DEFAULT '',
  call INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY (run_id, owner)
) WITHOUT ROWID;
CREATE TABLE run_segment_changes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  event INTEGER NOT NULL,
  address INTEGER NOT NULL,
  present INTEGER NOT NULL,
  pool TEXT NOT NULL DEFAULT '',
  stream INTEGER NOT NULL DEFAULT 0,
  small INTEGER NOT NULL DEFAULT 0,
  total_size INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, event, address)
) WITHOUT ROWID;
CREATE TABLE run_block_changes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  event INTEGER NOT NULL,
  address INTEGER NOT NULL,
  present INTEGER NOT NULL,
  segment INTEGER NOT NULL DEFAULT 0,
  size INTEGER NOT NULL DEFAULT 0,
  requested INTEGER NOT NULL DEFAULT 0,
  allocated INTEGER NOT NULL DEFAULT 0,
  owner INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY (run_id, event, address)
) WITHOUT ROWID;
CREATE TABLE run_keyframes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  event INTEGER NOT NULL,
  state BLOB NOT NULL,
  PRIMARY KEY (run_id, event)
) WITHOUT ROWID;
)SQL";

// Step 4: a TORCH_TRACE's compile ids (storage/trace_store.h) and its chromium spans.
const char* const kSchemaV4 = R"SQL(
CREATE TABLE trace_compiles (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  rank INTEGER,
  log TEXT NOT NULL DEFAULT '',
  compile_id TEXT NOT NULL,
  frame INTEGER NOT NULL,
  frame_compile INTEGER NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  grp TEXT NOT NULL,
  phase TEXT NOT NULL DEFAULT '',
  first_line INTEGER NOT NULL DEFAULT 0,
  start_us REAL,
  end_us REAL,
  compile_seconds REAL,
  fail_type TEXT NOT NULL DEFAULT '',
  fail_reason TEXT NOT NULL DEFAULT '',
  graph_count INTEGER NOT NULL DEFAULT 0,
  recompile_reasons TEXT NOT NULL DEFAULT '[]',
  metrics TEXT NOT NULL DEFAULT '',
  guards TEXT NOT NULL DEFAULT '',
  sources TEXT NOT NULL DEFAULT '[]',
  symbols TEXT NOT NULL DEFAULT '[]',
  stack TEXT NOT NULL DEFAULT '[]',
  artifacts TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX trace_compiles_source ON trace_compiles(source_id);
CREATE TABLE trace_spans (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  rank INTEGER,
  compile_id TEXT,
  name TEXT NOT NULL,
  category TEXT NOT NULL DEFAULT '',
  start_us REAL NOT NULL,
  end_us REAL NOT NULL
);
CREATE INDEX trace_spans_source ON trace_spans(source_id, start_us);
)SQL";

// Step 5 (issue 18): a run's origin instead of the magic backend "snapshot". A recording has no
// backend (''), says what wrote its file, keeps the allocator's settings (a JSON list of
// [name, value] pairs) and whether the file told the device's capacity; capacity_known is 1 for a
// simulation (the scenario's device). Runs stored before as backend 'snapshot' are recordings
// whose writer and settings were not kept. A recording's owner categories (runs.categories, a JSON
// list) index each event's allocated bytes by category (run_events.category_bytes: the numbers
// separated by commas, NULL when the run has no categories).
const char* const kSchemaV5 = R"SQL(
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'simulated';
ALTER TABLE runs ADD COLUMN recorded_as TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN allocator_settings TEXT NOT NULL DEFAULT '[]';
ALTER TABLE runs ADD COLUMN capacity_known INTEGER NOT NULL DEFAULT 1;
UPDATE runs SET origin = 'recorded', backend = '', capacity_known = 0,
  recorded_as = 'memory snapshot (imported before schema 5: its writer and allocator settings were not kept)'
  WHERE backend = 'snapshot';
ALTER TABLE run_owners ADD COLUMN category TEXT NOT NULL DEFAULT '';
ALTER TABLE run_owners ADD COLUMN stack TEXT NOT NULL DEFAULT '';
ALTER TABLE run_owners ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
ALTER TABLE run_events ADD COLUMN time_us INTEGER;
ALTER TABLE runs ADD COLUMN categories TEXT NOT NULL DEFAULT '[]';
ALTER TABLE run_events ADD COLUMN category_bytes TEXT;
)SQL";

// Step 6 (issue 19): a long text (over kLongText bytes, graph_store.cpp) is stored once, in `texts`,
// keyed by its md5, however many graphs hold it: every pass's result graph repeats the graph's
// targets, so one 8 MiB target was 8 MiB per graph. The row keeps the text cut (engine::cutText, for
// sqlite3 users) and names the whole text. Nothing here deletes sources; a text whose rows were
// deleted by hand stays in the table.
const char* const kSchemaV6 = R"SQL(
CREATE TABLE texts (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  text TEXT NOT NULL
);
ALTER TABLE nodes ADD COLUMN target_text INTEGER REFERENCES texts(id);
ALTER TABLE node_args ADD COLUMN value_text INTEGER REFERENCES texts(id);
)SQL";

} // namespace

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
        { 2, "graphs, cache entries, simulation runs and pass reports", kSchemaV2 },
        { 3, "what told each input's kind, why a graph has no tensor metadata, whether a pass report was measured",
            "ALTER TABLE nodes ADD COLUMN input_kind_from TEXT NOT NULL DEFAULT '';"
            "ALTER TABLE graphs ADD COLUMN metadata_missing TEXT NOT NULL DEFAULT '';"
            "ALTER TABLE pass_reports ADD COLUMN measured INTEGER NOT NULL DEFAULT 1;"
            "ALTER TABLE pass_reports ADD COLUMN unmeasured_why TEXT NOT NULL DEFAULT '';" },
        { 4, "a TORCH_TRACE's compiles and spans", kSchemaV4 },
        { 5,
            "where a run came from (simulated or recorded), recorded owners' category, stack and evidence, "
            "events' times and bytes by category",
            kSchemaV5 },
        { 6, "long texts (node targets, argument values) stored once, in texts", kSchemaV6 },
        // Step 7 (issue 23): what a run had to assume or could not know (Simulation::assumptions: a log's
        // notes, a scenario made from a log or a trace), a JSON list of strings.
        { 7, "what each run assumed", "ALTER TABLE runs ADD COLUMN assumptions TEXT NOT NULL DEFAULT '[]';" },
    };
    return steps;
}

namespace {

/// What a file that is no project is, in words ("a memory snapshot (pickle)").
const char* inputWords(engine::ingest::SourceKind kind)
{
    using engine::ingest::SourceKind;
    switch (kind) {
    case SourceKind::FxGraph:
        return "an FX graph (text)";
    case SourceKind::Scenario:
        return "a scenario (JSON)";
    case SourceKind::TorchairModule:
        return "TorchAir's generated module (Python)";
    case SourceKind::CacheFile:
        return "a TorchAir compiled_module (pickle)";
    case SourceKind::MemorySnapshot:
        return "a memory snapshot (pickle)";
    case SourceKind::InductorCode:
        return "Inductor's generated module (Python)";
    case SourceKind::TorchTrace:
        return "a TORCH_TRACE log";
    case SourceKind::RunLog:
        return "a run log (TorchAir / PyTorch)";
    case SourceKind::DebugDir:
    case SourceKind::CacheDir:
    case SourceKind::Folder:
        break;
    }
    return "an input file";
}

constexpr std::string_view kSqliteHeader { "SQLite format 3\0", 16 };

/// Before SQLite sees the path: a FIFO would block its open, a device or a foreign file is no
/// project. Sets `sqliteHeader` when the file starts with SQLite's header.
Result<void> checkProjectFile(const std::string& path, const Database::OpenOptions& options, bool& sqliteHeader)
{
    std::string why;
    const engine::PathKind kind = engine::pathKindOf(path, &why);
    if (kind == engine::PathKind::Missing) {
        if (options.create && !options.readOnly)
            return {}; // a new project
        return Error { ErrorCode::NotFound, "no such project file (" + why + ")", path };
    }
    if (kind == engine::PathKind::Directory)
        return Error { ErrorCode::InvalidArgument, "a folder, not a project file (.aclgi)", path };
    auto file = engine::InputFile::open(path); // refuses a FIFO, socket or device by name
    if (!file)
        return file.error();
    const std::string head = file->head(kSqliteHeader.size());
    if (head.empty()) {
        // Decided: a 0-byte file given to a writer (import --db, simulate --db) becomes a new project,
        // as SQLite itself treats it as an empty database; a reader says what it is.
        if (options.create && !options.readOnly)
            return {};
        return Error { ErrorCode::InvalidArgument, "empty (0 bytes): not a project", path };
    }
    sqliteHeader = head == kSqliteHeader;
    if (sqliteHeader)
        return {};
    auto detected = engine::ingest::detectFile(path);
    if (detected)
        return Error { ErrorCode::InvalidArgument,
            std::string(inputWords(detected->kind)) + ", not a project: import it with `import " + path
                + " --db P.aclgi`",
            path };
    return Error { ErrorCode::InvalidArgument,
        "not a project database: it does not start with SQLite's header, and it is no input aclgraph-inspector reads ("
            + detected.error().message + ")",
        path };
}

/// The first lines of a quick_check report.
std::string firstLines(const std::string& report, int lines)
{
    std::istringstream in(report);
    std::string line, out;
    int n = 0;
    while (std::getline(in, line)) {
        if (n++ == lines) {
            out += "  ...\n";
            break;
        }
        out += "  " + line + "\n";
    }
    return out;
}

} // namespace

Result<Database> openProject(const std::string& path, const Database::OpenOptions& options, int upTo)
{
    const bool file = path != ":memory:" && !path.empty();
    bool sqliteHeader = false;
    if (file)
        if (auto r = checkProjectFile(path, options, sqliteHeader); !r)
            return r.error();
    auto opened = Database::open(path, options);
    if (!opened) {
        if (sqliteHeader) // SQLite's own file whose first pages it cannot read
            return Error { ErrorCode::InvalidArgument,
                "the project is damaged (SQLite: " + opened.error().message + "); it cannot be read", path };
        return opened.error();
    }
    Database db = std::move(opened.value());
    if (file && options.quickCheckMaxBytes > 0) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(path, ec);
        if (!ec && size <= options.quickCheckMaxBytes) {
            auto report = db.quickCheck();
            db.setQuickChecked(true);
            std::string damage = report ? *report : report.error().message + "\n";
            if (!damage.empty()) {
                damage = firstLines(damage, 5);
                if (!options.readOnly)
                    return Error { ErrorCode::InvalidArgument,
                        "the project is damaged, so nothing is written into it (read commands open it read-only); "
                        "SQLite's quick_check says:\n"
                            + damage.substr(0, damage.size() - 1),
                        path };
                db.setDamage(damage);
            }
        }
    }
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
